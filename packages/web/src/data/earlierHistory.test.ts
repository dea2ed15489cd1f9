import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withEarlierHistory } from './earlierHistory.ts';
import { sessionReducer } from './sessionReducer.ts';
import { emptySessionState } from './sessionState.ts';
import { row, userRow } from './testing/fixtures.ts';
import { type TimelineItem, timeline } from './timeline.ts';

const history = sessionReducer(emptySessionState('cc'), {
  type: 'olderPage',
  page: {
    messages: [userRow('r1', 'old question', { position: 0 }), row({ id: 'r2', position: 1 })],
    turns: [],
    hasMore: false,
  },
});
const own: TimelineItem[] = [{ kind: 'user', key: 'm1', row: userRow('m1', 'new question') }];
const continuedFrom = { claudeSessionId: 'cc', mode: 'resume' as const, rows: 2 };

test('folded, the history is one line above the session’s own turns', () => {
  const items = withEarlierHistory(own, { continuedFrom, open: false, view: null }, false);
  assert.deepEqual(
    items.map((item) => item.key),
    ['earlier:start', 'm1'],
  );
});

test('opened, its rows sit between the start and end lines, keyed apart from the session’s rows', () => {
  const items = withEarlierHistory(own, { continuedFrom, open: true, view: history }, false);
  assert.deepEqual(
    items.map((item) => item.key),
    ['earlier:start', 'earlier:r1', 'earlier:r2', 'earlier:end', 'm1'],
  );
  const again = withEarlierHistory(own, { continuedFrom, open: true, view: history }, false);
  assert.equal(again[1], items[1], 'an untouched history row keeps its item (the memoized row does not render again)');
  assert.deepEqual(
    items.map((item) => item.readOnly ?? false),
    [false, true, true, false, false],
    'the history’s rows act on no session; the markers and the session’s own rows do',
  );
  assert.equal(timeline(history)[0]?.key, 'r1', 'the history’s own timeline is untouched');
});

test('nothing is shown while the session’s own older rows are not loaded, nor for a history of no rows', () => {
  assert.deepEqual(withEarlierHistory(own, { continuedFrom, open: true, view: history }, true), own);
  assert.deepEqual(
    withEarlierHistory(own, { continuedFrom: { ...continuedFrom, rows: 0 }, open: false, view: null }, false),
    own,
  );
  assert.deepEqual(withEarlierHistory(own, null, false), own);
});
