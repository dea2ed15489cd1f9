import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordEvents } from './fixtures/sdkFixtures.ts';
import { ToolCalls } from './toolCalls.ts';

/*
 * Claude Code's heartbeats (`tool_progress` with `tool_use_id: "<id>-heartbeat-<n>"` and
 * `parent_tool_use_id: "<id>"`, every 30 s while a tool shows nothing) are progress of the running call,
 * never a call of their own. The shapes are the ones the bundled Claude Code 2.1.332 sends.
 */

const TURN = 'turn-1';

function running() {
  const { events, emit } = recordEvents();
  const tools = new ToolCalls(emit);
  tools.assistantToolUse(
    { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'sleep-ish' } },
    undefined,
    TURN,
  );
  return { events, tools };
}

const beat = (n: number, extra: Record<string, unknown> = {}) => ({
  type: 'tool_progress',
  tool_use_id: `toolu_1-heartbeat-${n}`,
  tool_name: 'Bash',
  parent_tool_use_id: 'toolu_1',
  elapsed_time_seconds: 30 * (n + 1),
  ...extra,
});

test('a heartbeat updates the running call with its elapsed time and starts no call', () => {
  const { events, tools } = running();
  tools.progress(beat(0), TURN);
  tools.progress(beat(1, { heartbeat: true }), TURN);
  assert.deepEqual(
    events.map((event) => [
      event.type,
      event.payload.toolCallId,
      (event.payload.metadata as { elapsedSeconds?: number }).elapsedSeconds,
    ]),
    [
      ['tool_started', 'toolu_1', undefined],
      ['tool_updated', 'toolu_1', 30],
      ['tool_updated', 'toolu_1', 60],
    ],
  );
  assert.equal(tools.get('toolu_1-heartbeat-0'), undefined, 'no call state for the heartbeat id');
  const input = events.at(-1)?.payload.input as { command?: string } | undefined;
  assert.equal(input?.command, 'sleep-ish', 'the update is of the running call, with its input');
});

test("a hook's heartbeat is progress of the call the hook runs for", () => {
  const { events, tools } = running();
  tools.progress(
    { ...beat(0), tool_use_id: 'hook-PreToolUse-toolu_1-heartbeat-0', tool_name: 'PreToolUse', heartbeat: true },
    TURN,
  );
  assert.deepEqual(
    events.map((event) => [event.type, event.payload.toolCallId, event.payload.toolName]),
    [
      ['tool_started', 'toolu_1', 'Bash'],
      ['tool_updated', 'toolu_1', 'Bash'],
    ],
  );
});

test('a heartbeat after its call ended, or of a call never announced, is dropped', () => {
  const { events, tools } = running();
  tools.result({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }, undefined, undefined, TURN);
  tools.progress(beat(0), TURN);
  tools.progress({ ...beat(0), tool_use_id: 'toolu_9-heartbeat-0', parent_tool_use_id: 'toolu_9' }, TURN);
  assert.deepEqual(
    events.map((event) => event.type),
    ['tool_started', 'tool_completed'],
  );
});

test("a subagent's own progress (parent: the Agent call, an id of its own) is still a call", () => {
  const { events, tools } = running();
  tools.progress(
    {
      type: 'tool_progress',
      tool_use_id: 'toolu_2',
      tool_name: 'Grep',
      parent_tool_use_id: 'toolu_1',
      elapsed_time_seconds: 1,
    },
    TURN,
  );
  assert.deepEqual(
    events.slice(1).map((event) => [event.type, event.payload.toolCallId]),
    [
      ['tool_started', 'toolu_2'],
      ['tool_updated', 'toolu_2'],
    ],
  );
});
