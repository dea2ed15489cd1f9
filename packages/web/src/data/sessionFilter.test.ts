import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyHostState, hostReducer, sortedSessions } from './hostState.ts';
import { listedSessions, matchesFilter } from './sessionFilter.ts';
import { interaction, summary } from './testing/fixtures.ts';

const idle = summary({ id: 'idle' });
const running = summary({ id: 'running', status: 'running', runningTurnId: 't1' });
const waiting = summary({ id: 'waiting', status: 'needs_input', needsInputCount: 1 });

test('the filters: needs you is a pending interaction, running a live turn, all is everything', () => {
  const ids = (filter: 'all' | 'needs_you' | 'running') =>
    [idle, running, waiting].filter((session) => matchesFilter(session, filter)).map((session) => session.id);
  assert.deepEqual(ids('all'), ['idle', 'running', 'waiting']);
  assert.deepEqual(ids('needs_you'), ['waiting']);
  assert.deepEqual(ids('running'), ['running']);
});

test('search hits take the live summary, keep prompt matches, drop sessions gone from this tab', () => {
  const stale = { ...running, status: 'idle' as const };
  const hits = [
    { session: stale, match: { field: 'prompt' as const, text: '…the websocket…', turnId: 't1' } },
    { session: idle, match: { field: 'title' as const, text: idle.title, turnId: null } },
    { session: summary({ id: 'deleted' }), match: { field: 'title' as const, text: 'x', turnId: null } },
    {
      session: summary({ id: 'archived', archivedAt: 5 }),
      match: { field: 'title' as const, text: 'x', turnId: null },
    },
  ];
  const listed = listedSessions([idle, running, waiting], 'all', hits);
  assert.deepEqual(
    listed.map((entry) => [entry.session.id, entry.session.status, entry.match?.text ?? null]),
    [
      ['running', 'running', '…the websocket…'],
      ['idle', 'idle', null],
      ['archived', 'idle', null],
    ],
  );
  assert.deepEqual(
    listedSessions([idle, running, waiting], 'running', hits).map((entry) => entry.session.id),
    ['running'],
  );
  assert.deepEqual(
    listedSessions([idle, running, waiting], 'needs_you', null).map((entry) => entry.session.id),
    ['waiting'],
  );
});

test('the host stream: an archived session leaves the list, a deleted one leaves the list and the inbox', () => {
  let state = hostReducer(emptyHostState, {
    type: 'lists',
    sessions: [idle, waiting],
    interactions: [interaction({ requestId: 'r1', session_id: 'waiting' })],
    lastSeq: 1,
  });
  state = hostReducer(state, {
    type: 'event',
    event: { type: 'session', data: { seq: 2, session: { ...idle, archivedAt: 5 } } },
  });
  assert.deepEqual(
    sortedSessions(state).map((session) => session.id),
    ['waiting'],
  );
  state = hostReducer(state, {
    type: 'event',
    event: { type: 'session_deleted', data: { seq: 3, session_id: 'waiting' } },
  });
  assert.deepEqual(sortedSessions(state), []);
  assert.deepEqual(state.inbox, {});
  assert.equal(state.lastSeq, 3);
});
