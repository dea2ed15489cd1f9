import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordEvents } from './fixtures/sdkFixtures.ts';
import { ToolCalls } from './toolCalls.ts';

const TURN = 'turn-1';

function setup() {
  const { events, emit } = recordEvents();
  return { events, tools: new ToolCalls(emit) };
}

function metadata(payload: Record<string, unknown> | undefined): Record<string, unknown> {
  return (payload?.metadata ?? {}) as Record<string, unknown>;
}

test('an is_error tool_result fails the call with its text as the error', () => {
  const { events, tools } = setup();
  tools.assistantToolUse(
    { type: 'tool_use', id: 't1', name: 'Write', input: { file_path: '/w/a.txt', content: 'x' } },
    undefined,
    TURN,
  );
  tools.result(
    { type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'User denied the write' },
    'Error: User denied the write',
    undefined,
    TURN,
  );
  const failed = events.at(-1)?.payload;
  assert.equal(events.at(-1)?.type, 'tool_failed');
  assert.equal(failed?.status, 'failed');
  assert.equal(failed?.error, 'User denied the write');
  assert.equal(failed?.callType, 'file_change');
  assert.deepEqual(failed?.locations, [{ path: '/w/a.txt' }]);
});

test('a repeated tool_result is dropped: one canonical completion per call', () => {
  const { events, tools } = setup();
  tools.assistantToolUse(
    { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/w/a.txt' } },
    undefined,
    TURN,
  );
  const block = { type: 'tool_result', tool_use_id: 't1', content: 'data' };
  assert.ok(tools.result(block, undefined, undefined, TURN));
  assert.equal(tools.result(block, undefined, undefined, TURN), undefined);
  tools.hookResult('t1', 'Read', {}, {}, undefined, TURN);
  assert.deepEqual(
    events.map((event) => event.type),
    ['tool_started', 'tool_completed'],
  );
});

test('a streamed tool with no consolidated message starts when its input block stops', () => {
  const { events, tools } = setup();
  tools.streamMessageStart();
  tools.streamBlockStart(1, { type: 'tool_use', id: 't1', name: 'Bash', input: {} }, TURN);
  tools.streamInputDelta(1, '{"command":"ls');
  tools.streamInputDelta(1, ' -la"}');
  assert.equal(events.length, 0, 'no start before the input is complete');
  assert.equal(tools.streamBlockStop(1, TURN), true);
  tools.assistantToolUse({ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls -la' } }, undefined, TURN);
  assert.deepEqual(
    events.map((event) => [event.type, event.payload.input]),
    [['tool_started', { command: 'ls -la', toolName: 'Bash' }]],
  );
});

test('tool_progress updates a running call with the elapsed time', () => {
  const { events, tools } = setup();
  tools.assistantToolUse({ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }, undefined, TURN);
  tools.progress(
    { type: 'tool_progress', tool_use_id: 't1', tool_name: 'Bash', parent_tool_use_id: null, elapsed_time_seconds: 3 },
    TURN,
  );
  assert.equal(events.at(-1)?.type, 'tool_updated');
  assert.equal(metadata(events.at(-1)?.payload).elapsedSeconds, 3);
});

test('nested calls carry their parent tool use id', () => {
  const { events, tools } = setup();
  tools.assistantToolUse(
    { type: 'tool_use', id: 'child', name: 'Grep', input: { pattern: 'x', path: '/w' } },
    'agent-call',
    TURN,
  );
  assert.equal(metadata(events[0]?.payload).parentToolUseId, 'agent-call');
  assert.deepEqual(events[0]?.payload.locations, [{ path: '/w' }]);
});

test('a background launch is closed by the root result even before its tool_result; a late result is dropped', () => {
  const { events, tools } = setup();
  tools.assistantToolUse(
    { type: 'tool_use', id: 'bg', name: 'Bash', input: { command: 'sleep 5', run_in_background: true } },
    undefined,
    TURN,
  );
  tools.completeBackgroundLaunches(TURN);
  tools.result(
    { type: 'tool_result', tool_use_id: 'bg', content: 'Command running in background' },
    { backgroundTaskId: 'b1' },
    undefined,
    TURN,
  );
  assert.deepEqual(
    events.map((event) => event.type),
    ['tool_started', 'tool_completed'],
  );
  assert.deepEqual(metadata(events[1]?.payload).backgroundProcess, { status: 'running' });
});

test('a failed background launch fails at once and is not closed again', () => {
  const { events, tools } = setup();
  tools.assistantToolUse(
    { type: 'tool_use', id: 'bg', name: 'Bash', input: { command: 'x', run_in_background: true } },
    undefined,
    TURN,
  );
  tools.result(
    { type: 'tool_result', tool_use_id: 'bg', is_error: true, content: 'denied' },
    undefined,
    undefined,
    TURN,
  );
  tools.completeBackgroundLaunches(TURN);
  assert.deepEqual(
    events.map((event) => event.type),
    ['tool_started', 'tool_failed'],
  );
});

test('without a turn nothing is emitted, but the call is still tracked to its completion', () => {
  const { events, tools } = setup();
  tools.assistantToolUse({ type: 'tool_use', id: 't1', name: 'Read', input: {} }, undefined, undefined);
  tools.result({ type: 'tool_result', tool_use_id: 't1', content: 'ok' }, undefined, undefined, TURN);
  assert.deepEqual(
    events.map((event) => event.type),
    ['tool_completed'],
  );
});

test('failOpen ends the running calls of that turn once each; a late canonical result is dropped', () => {
  const { events, tools } = setup();
  tools.assistantToolUse(
    { type: 'tool_use', id: 'run', name: 'Bash', input: { command: 'sleep 30' } },
    undefined,
    TURN,
  );
  tools.assistantToolUse({ type: 'tool_use', id: 'other', name: 'Read', input: {} }, undefined, 'turn-2');
  tools.assistantToolUse({ type: 'tool_use', id: 'plan', name: 'TodoWrite', input: { todos: [] } }, undefined, TURN);
  tools.hookResult('plan', 'TodoWrite', { todos: [] }, {}, undefined, TURN);
  tools.streamMessageStart();
  tools.streamBlockStart(0, { type: 'tool_use', id: 'unfinished', name: 'Write', input: {} }, TURN);
  const before = events.length;

  tools.failOpen(TURN, 'Tool use aborted');
  tools.failOpen(TURN, 'Tool use aborted');
  tools.result({ type: 'tool_result', tool_use_id: 'run', content: 'late' }, undefined, undefined, TURN);

  const closed = events.slice(before);
  assert.deepEqual(
    closed.map((event) => [event.type, event.payload.toolCallId, event.payload.error]),
    [['tool_failed', 'run', 'Tool use aborted']],
    'only the announced, not yet completed call of that turn fails, and only once',
  );
  assert.equal(closed[0]?.payload.status, 'failed');
  assert.equal(metadata(closed[0]?.payload).interrupted, true);
  tools.result({ type: 'tool_result', tool_use_id: 'other', content: 'ok' }, undefined, undefined, 'turn-2');
  assert.equal(events.at(-1)?.type, 'tool_completed', 'the call of another turn still completes canonically');
});
