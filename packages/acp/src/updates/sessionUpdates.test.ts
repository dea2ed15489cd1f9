import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import {
  type MessageView,
  messageViewSchema,
  type SessionEvent,
  sessionEventPayloadSchemas,
} from '@outrigger/host-api';
import { SessionUpdates } from './sessionUpdates.ts';

/** A recorded scenario as the host produced it (fixtures/recordHostFixtures.ts), parsed with the contract's schemas. */
function fixture(name: string): { cwd: string; events: SessionEvent[]; rows: MessageView[] } {
  const raw = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', `${name}.json`), 'utf8'));
  const events = raw.events.map(
    (event: SessionEvent) =>
      ({ type: event.type, data: sessionEventPayloadSchemas[event.type].parse(event.data) }) as SessionEvent,
  );
  return { cwd: raw.cwd, events, rows: raw.rows.map((row: unknown) => messageViewSchema.parse(row)) };
}

const textOf = (updates: SessionUpdate[], kind: string): string =>
  updates
    .map((u) =>
      u.sessionUpdate === kind && 'content' in u && !Array.isArray(u.content) && u.content?.type === 'text'
        ? u.content.text
        : '',
    )
    .join('');

test('deltas then final send the answer once; thinking is a thought; the prompt of another client is echoed', () => {
  const { cwd, events } = fixture('plain');
  const updates = new SessionUpdates({ cwd });
  const all = events.flatMap((event) => updates.fromEvent(event));
  assert.equal(textOf(all, 'agent_message_chunk'), 'Here is a plain answer, streamed in small pieces.');
  assert.equal(textOf(all, 'agent_thought_chunk'), 'The user wants a short answer.');
  assert.equal(textOf(all, 'user_message_chunk'), '[scenario:plain] Say something short.');
  assert.deepEqual(
    events.flatMap((event) => updates.fromEvent(event)),
    [],
    'a replayed event sends nothing',
  );
});

test('an own turn is not echoed; an interrupted block sends nothing more', () => {
  const { cwd, events } = fixture('cancel');
  const updates = new SessionUpdates({ cwd });
  updates.ownTurn('turn-cancel-1');
  const all = events.flatMap((event) => updates.fromEvent(event));
  assert.equal(textOf(all, 'user_message_chunk'), '');
  assert.equal(textOf(all, 'agent_message_chunk'), 'streaming streaming ');
});

test('an Edit: tool_call with an absolute diff, then completed; fromRow reaches the same final state', () => {
  const { cwd, events, rows } = fixture('edit');
  const live = new SessionUpdates({ cwd });
  const all = events.flatMap((event) => live.fromEvent(event));
  const calls = all.filter((u) => u.sessionUpdate === 'tool_call');
  assert.deepEqual(
    calls.map((u) => u.sessionUpdate === 'tool_call' && [u.title, u.kind]),
    [
      ['Read notes.txt', 'read'],
      ['Edit notes.txt', 'edit'],
    ],
  );
  const edit = calls[1]!;
  assert.ok(edit.sessionUpdate === 'tool_call');
  assert.deepEqual(edit.content?.[0], { type: 'diff', path: `${cwd}/notes.txt`, oldText: 'hello', newText: 'goodbye' });
  const final = new Map<string, Record<string, unknown>>();
  for (const u of all) {
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') continue;
    const { sessionUpdate: _, ...fields } = u;
    final.set(u.toolCallId, { ...final.get(u.toolCallId), ...fields });
  }
  const replay = new SessionUpdates({ cwd });
  for (const row of rows) {
    for (const u of replay.fromRow(row)) {
      if (u.sessionUpdate !== 'tool_call') continue;
      const { sessionUpdate: _, ...fields } = u;
      assert.deepEqual(fields, final.get(u.toolCallId), `the replayed ${u.title} equals the live end state`);
      assert.equal(fields.status, 'completed');
    }
  }
});

test('task_update becomes the plan, one entry per todo', () => {
  const { cwd, events } = fixture('todo');
  const updates = new SessionUpdates({ cwd });
  const plans = events.flatMap((event) => updates.fromEvent(event)).filter((u) => u.sessionUpdate === 'plan');
  assert.deepEqual(plans.at(-1), {
    sessionUpdate: 'plan',
    entries: [
      { content: 'Read the code', priority: 'medium', status: 'completed' },
      { content: 'Write the test', priority: 'medium', status: 'in_progress' },
      { content: 'Ship it', priority: 'medium', status: 'pending' },
    ],
  });
});
