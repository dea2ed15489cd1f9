import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '@outrigger/host-api';
import { sessionReducer } from './sessionReducer.ts';
import { emptySessionState, type SessionViewState } from './sessionState.ts';
import { ev, interaction, snapshot, T0, tool, userRow } from './testing/fixtures.ts';
import { recordedTurn } from './testing/recordedTurn.ts';
import { type TimelineItem, timeline } from './timeline.ts';

function fold(events: SessionEvent[]): SessionViewState {
  let state = sessionReducer(emptySessionState('s1'), { type: 'snapshot', snapshot: snapshot() });
  for (const event of events) state = sessionReducer(state, { type: 'event', event, receivedAt: T0 });
  return state;
}

const shape = (items: TimelineItem[]) => items.map((item) => `${item.kind}:${item.key}`);

test('a finished turn: its rows, the prompt on its tool card, then one footer', () => {
  const items = timeline(fold(recordedTurn()));
  assert.deepEqual(shape(items), [
    'user:t1-u',
    'thinking:t1-m1',
    'text:t1-m2',
    'tool:t1-m3',
    'text:t1-m4',
    'footer:footer:t1',
  ]);
  const toolItem = items[3];
  assert.equal(toolItem?.kind === 'tool' && toolItem.node.interactions[0]?.requestId, 'r1');
});

test('a running turn has no footer yet; a subagent’s calls nest under its Agent call', () => {
  const items = timeline(
    fold([
      ev('turn_started', 1, { turnId: 't1', kind: 'user', message: userRow('u', 'explore', { turnId: 't1' }) }),
      ev('tool_use', 2, {
        turnId: 't1',
        messageId: 'a',
        tool: tool({ id: 'agent', name: 'Agent', callType: 'subagent' }),
      }),
      ev('tool_use', 3, {
        turnId: 't1',
        messageId: 'g',
        tool: tool({ id: 'grep', name: 'Grep', parentToolUseId: 'agent' }),
      }),
      ev('tool_use', 4, {
        turnId: 't1',
        messageId: 'r',
        tool: tool({ id: 'read', name: 'Read', parentToolUseId: 'nope' }),
      }),
    ]),
  );
  assert.deepEqual(shape(items), ['user:u', 'tool:a', 'tool:r']);
  const agent = items[1];
  assert.equal(agent?.kind === 'tool' && agent.node.children[0]?.row.id, 'g');
});

test('a pending prompt whose call is not shown stands on its own at the end of its turn', () => {
  const items = timeline(
    fold([
      ev('turn_started', 1, { turnId: 't1', kind: 'user', message: userRow('u', 'go', { turnId: 't1' }) }),
      ev('permission_request', 2, { turnId: 't1', interaction: interaction({ requestId: 'r9', tool_use_id: 'x' }) }),
      ev('permission_request', 3, {
        turnId: 't7',
        interaction: interaction({ requestId: 'r8', turnId: 't7', tool_use_id: 'y', createdAt: T0 + 1 }),
      }),
    ]),
  );
  assert.deepEqual(shape(items), ['user:u', 'prompt:prompt:r9', 'prompt:prompt:r8']);
});

test('a delta makes a new item for the streaming row only: the rows, prompts and footers it left keep their identity', () => {
  const finished = recordedTurn(1, 't1');
  const before = fold([
    ...finished,
    ev('permission_request', finished.length + 1, {
      turnId: 't2',
      interaction: interaction({ requestId: 'r2', turnId: 't2', tool_use_id: 'unseen' }),
    }),
    ev('text', finished.length + 2, {
      turnId: 't2',
      messageId: 'live',
      delta: 'Wor',
      final: false,
      interrupted: false,
    }),
  ]);
  const after = sessionReducer(before, {
    type: 'event',
    event: ev('text', finished.length + 3, {
      turnId: 't2',
      messageId: 'live',
      delta: 'king',
      final: false,
      interrupted: false,
    }),
    receivedAt: T0,
  });
  const [previous, next] = [timeline(before), timeline(after)];
  assert.deepEqual(shape(next), shape(previous));
  const changed = next.filter((item, index) => item !== previous[index]).map((item) => `${item.kind}:${item.key}`);
  // The tool card is rebuilt every time (its node gathers its subagent's calls and prompts).
  assert.deepEqual(changed, ['tool:t1-m3', 'text:live']);
});
