import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventPayloadSchemas } from '@outrigger/protocol';
import {
  loadSdkFixture,
  type RecordedEvent,
  recordEvents,
  replaySdkFixture,
  type SdkFixtureEntry,
  type SdkFixtureName,
} from './fixtures/sdkFixtures.ts';
import { createStreamProjector } from './streamProjector.ts';

const TURN = 'turn-1';

function run(entries: SdkFixtureEntry[]): {
  events: RecordedEvent[];
  projector: ReturnType<typeof createStreamProjector>;
} {
  const { events, emit } = recordEvents();
  const projector = createStreamProjector({ emit });
  replaySdkFixture(projector, entries, TURN);
  return { events, projector };
}

function ofType(events: RecordedEvent[], type: string): Record<string, unknown>[] {
  return events.filter((event) => event.type === type).map((event) => event.payload);
}

function forTool(events: RecordedEvent[], toolCallId: string): RecordedEvent[] {
  return events.filter((event) => event.type.startsWith('tool_') && event.payload.toolCallId === toolCallId);
}

function metadataOf(payload: Record<string, unknown> | undefined): Record<string, unknown> {
  return (payload?.metadata ?? {}) as Record<string, unknown>;
}

function outputOf(payload: Record<string, unknown> | undefined): Record<string, unknown> {
  return (payload?.output ?? {}) as Record<string, unknown>;
}

describe('streamed text answer (real capture)', () => {
  const { events } = run(loadSdkFixture('streamed-text'));

  test('thinking and text deltas accumulate into snapshots', () => {
    const thinking = ofType(events, 'thinking_delta');
    assert.deepEqual(
      thinking.map((delta) => delta.content),
      ['The user w', 'ants a gre', 'eting.'],
    );
    assert.deepEqual(
      thinking.map((delta) => delta.snapshot),
      ['The user w', 'The user wants a gre', 'The user wants a greeting.'],
    );
    const text = ofType(events, 'assistant_delta');
    assert.equal(text.length, 5);
    assert.equal(text.at(-1)?.snapshot, 'Hello there! How can I help you today?');
    assert.equal(text.map((delta) => delta.content).join(''), 'Hello there! How can I help you today?');
    for (const delta of [...thinking, ...text]) assert.equal(delta.turnId, TURN);
  });

  test('each block completes once, under its live message id, despite the consolidated message', () => {
    const thinkingDone = ofType(events, 'thinking_completed');
    const textDone = ofType(events, 'assistant_completed');
    assert.equal(thinkingDone.length, 1);
    assert.equal(textDone.length, 1);
    assert.equal(thinkingDone[0]?.content, 'The user wants a greeting.');
    assert.equal(textDone[0]?.content, 'Hello there! How can I help you today?');
    assert.match(String(textDone[0]?.messageId), /^claude-sdk:assistant:msg_fixture_001:live:\d+$/);
    assert.match(String(thinkingDone[0]?.messageId), /^claude-sdk:thinking:msg_fixture_001:live:\d+$/);
    const textIds = new Set(ofType(events, 'assistant_delta').map((delta) => delta.messageId));
    assert.deepEqual([...textIds], [textDone[0]?.messageId]);
    assert.notEqual(textDone[0]?.messageId, thinkingDone[0]?.messageId);
  });

  test('message_delta usage becomes usage_updated', () => {
    const usage = ofType(events, 'usage_updated');
    assert.equal(usage.length, 1);
    assert.deepEqual(usage[0], { turnId: TURN, usage: { input_tokens: 100, output_tokens: 42 } });
  });

  test('system init publishes the filtered command list and the fast-mode state', () => {
    const [commands] = ofType(events, 'commands_updated');
    const names = ((commands?.commands ?? []) as { name: string }[]).map((command) => command.name);
    assert.ok(names.includes('compact'));
    assert.ok(!names.includes('clear'));
    assert.ok(String(commands?.providerSessionId).length > 0);
    assert.deepEqual(ofType(events, 'speed_updated'), [{ state: 'off', speed: 'standard' }]);
  });
});

describe('text then tool_use in one API message (real capture)', () => {
  const { events } = run(loadSdkFixture('text-and-tool'));
  const bash = forTool(events, 'toolu_fixture_bash1');

  test('the tool starts once with its complete input and completes once from the tool_result', () => {
    assert.deepEqual(
      bash.map((event) => event.type),
      ['tool_started', 'tool_completed'],
    );
    const [started, completed] = bash;
    assert.equal(started?.payload.callType, 'command');
    assert.equal(started?.payload.status, 'streaming');
    assert.deepEqual(started?.payload.input, {
      command: 'echo made > notes.txt && cat notes.txt',
      description: 'Write and read a note',
      toolName: 'Bash',
    });
    assert.equal(completed?.payload.status, 'completed');
    assert.deepEqual(completed?.payload.content, [{ type: 'tool_result', isError: false, text: 'made' }]);
    assert.equal(metadataOf(completed?.payload).resultSource, 'canonical');
    assert.equal(metadataOf(completed?.payload).adapter, 'claude-agent-sdk');
    assert.deepEqual(outputOf(completed?.payload).toolResponse, {
      stdout: 'made',
      stderr: '',
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
    });
  });

  test('both API messages complete their text exactly once', () => {
    assert.deepEqual(
      ofType(events, 'assistant_completed').map((done) => done.content),
      ['Let me look.', 'The note says made.'],
    );
  });
});

describe('TodoWrite turn (real capture, PostToolUse before the tool_result)', () => {
  const entries = loadSdkFixture('todowrite');
  const expectedPlan = [
    { id: 'todo-0', content: 'Write the parser', status: 'in_progress', description: 'Writing the parser' },
    { id: 'todo-1', content: 'Test the parser', status: 'pending', description: 'Testing the parser' },
  ];

  test('hook result and plan at once, then the canonical result; the plan is published once', () => {
    const { events } = run(entries);
    const todo = events.filter(
      (event) => event.type === 'plan_updated' || event.payload.toolCallId === 'toolu_fixture_todo1',
    );
    assert.deepEqual(
      todo.map((event) => `${event.type}:${metadataOf(event.payload).resultSource ?? ''}`),
      ['tool_started:', 'tool_completed:hook', 'plan_updated:', 'tool_completed:canonical'],
    );
    assert.deepEqual(todo[2]?.payload, { turnId: TURN, entries: expectedPlan });
    const canonical = todo[3]?.payload;
    assert.match(String(outputOf(canonical).text), /^Todos have been modified successfully/);
  });

  test('canonical result before the hook: the late hook adds nothing', () => {
    const hookIndex = entries.findIndex((entry) => 'hook' in entry);
    const resultIndex = entries.findIndex(
      (entry) => 'message' in entry && entry.message.type === 'user' && JSON.stringify(entry).includes('tool_result'),
    );
    assert.ok(hookIndex >= 0 && resultIndex > hookIndex, 'fixture has the hook before the tool_result');
    const reordered = [...entries];
    const [hook] = reordered.splice(hookIndex, 1);
    assert.ok(hook !== undefined);
    reordered.splice(resultIndex, 0, hook);

    const { events } = run(reordered);
    const todo = events.filter(
      (event) => event.type === 'plan_updated' || event.payload.toolCallId === 'toolu_fixture_todo1',
    );
    assert.deepEqual(
      todo.map((event) => `${event.type}:${metadataOf(event.payload).resultSource ?? ''}`),
      ['tool_started:', 'tool_completed:canonical', 'plan_updated:'],
    );
    assert.deepEqual(todo[2]?.payload.entries, expectedPlan);
  });
});

describe('TaskCreate / TaskUpdate / TaskList turn (real capture)', () => {
  const { events } = run(loadSdkFixture('taskcreate-update'));

  test('every change publishes the full plan once; TaskList confirms without republishing', () => {
    assert.deepEqual(
      ofType(events, 'plan_updated').map((update) => update.entries),
      [
        [{ id: '1', content: 'Write tests', status: 'pending', description: 'Cover the projector' }],
        [{ id: '1', content: 'Write tests', status: 'in_progress', description: 'Cover the projector' }],
        [{ id: '1', content: 'Write tests', status: 'completed', description: 'Cover the projector' }],
      ],
    );
  });

  test('each Task* call gets one hook result and one canonical result', () => {
    for (const id of ['toolu_fixture_tc1', 'toolu_fixture_tu1', 'toolu_fixture_tu2', 'toolu_fixture_tl1']) {
      assert.deepEqual(
        forTool(events, id).map((event) => `${event.type}:${metadataOf(event.payload).resultSource ?? ''}`),
        ['tool_started:', 'tool_completed:hook', 'tool_completed:canonical'],
        id,
      );
    }
  });
});

describe('background Bash launch (real capture)', () => {
  test('the launch stays open until the successful root result closes it, once', () => {
    const { events, projector } = run(loadSdkFixture('background-bash'));
    const launch = forTool(events, 'toolu_fixture_bg1');
    assert.deepEqual(
      launch.map((event) => event.type),
      ['tool_started', 'tool_updated'],
    );
    assert.deepEqual(metadataOf(launch[1]?.payload).backgroundProcess, { taskId: 'befckt4da', status: 'running' });
    assert.equal(ofType(events, 'task_started').length, 0, 'a shell task is not a delegated task');

    projector.completeBackgroundLaunches(TURN);
    projector.completeBackgroundLaunches(TURN);
    const closed = forTool(events, 'toolu_fixture_bg1').slice(2);
    assert.equal(closed.length, 1);
    assert.equal(closed[0]?.type, 'tool_completed');
    assert.deepEqual(metadataOf(closed[0]?.payload).backgroundProcess, { taskId: 'befckt4da', status: 'running' });
    assert.equal(metadataOf(closed[0]?.payload).resultSource, 'canonical');
    assert.match(String(outputOf(closed[0]?.payload).text), /^Command running in background/);
  });
});

describe('delegated Agent task (real capture)', () => {
  const { events } = run(loadSdkFixture('delegated-agent'));

  test('task lifecycle events name the launching tool call and the task', () => {
    const lifecycle = events.filter((event) => event.type.startsWith('task_'));
    assert.deepEqual(
      lifecycle.map((event) => `${event.type}:${event.payload.status}`),
      ['task_started:running', 'task_progress:running', 'task_completed:completed', 'task_result_updated:completed'],
    );
    for (const { payload } of lifecycle) {
      assert.equal(payload.toolCallId, 'toolu_fixture_agent1');
      assert.equal(payload.parentToolUseId, 'toolu_fixture_agent1');
      assert.equal(payload.taskId, payload.agentId);
      assert.equal(metadataOf(payload).subagentAsync, true);
    }
    assert.equal(lifecycle[1]?.payload.lastToolName, 'Bash');
    assert.equal(lifecycle[3]?.payload.summary, 'Subagent report: wrote sub.txt');
    assert.match(String(lifecycle[3]?.payload.outputFile), /\.output$/);
  });

  test('the Agent call completes as an async launch; the nested call carries its parent', () => {
    const agent = forTool(events, 'toolu_fixture_agent1');
    assert.deepEqual(
      agent.map((event) => event.type),
      ['tool_started', 'tool_completed'],
    );
    assert.equal(agent[0]?.payload.callType, 'subagent');
    assert.equal(metadataOf(agent[1]?.payload).async, true);
    const nested = forTool(events, 'toolu_fixture_sub_bash1');
    assert.deepEqual(
      nested.map((event) => event.type),
      ['tool_started', 'tool_completed'],
    );
    for (const { payload } of nested) assert.equal(metadataOf(payload).parentToolUseId, 'toolu_fixture_agent1');
  });

  test('subagent prose is not root assistant output', () => {
    assert.deepEqual(
      ofType(events, 'assistant_completed').map((done) => done.content),
      ['Launched the agent.', 'The subagent is done.'],
    );
  });
});

describe('session-level and edge messages (scripted)', () => {
  function project(messages: Record<string, unknown>[], turnId: string | undefined = TURN) {
    const { events, emit } = recordEvents();
    const projector = createStreamProjector({ emit });
    for (const message of messages) projector.project(message as never, turnId);
    return { events, projector };
  }

  test('fast-mode state publishes on change only, and again after a new Query generation', () => {
    const { events, projector } = project([
      { type: 'system', subtype: 'init', session_id: 's1', slash_commands: [], fast_mode_state: 'on' },
      { type: 'result', subtype: 'success', fast_mode_state: 'on' },
      { type: 'result', subtype: 'success', fast_mode_state: 'cooldown' },
    ]);
    projector.reset();
    projector.project({ type: 'result', subtype: 'success', fast_mode_state: 'cooldown' } as never, undefined);
    assert.deepEqual(ofType(events, 'speed_updated'), [
      { state: 'on', speed: 'fast' },
      { state: 'cooldown' },
      { state: 'cooldown' },
    ]);
  });

  test('commands_changed replaces the list and needs no turn', () => {
    const { events } = project(
      [
        {
          type: 'system',
          subtype: 'commands_changed',
          session_id: 's1',
          commands: [{ name: 'deploy', description: 'Ship it', argumentHint: '<env>' }],
        },
      ],
      undefined,
    );
    assert.deepEqual(events, [
      {
        type: 'commands_updated',
        payload: {
          providerSessionId: 's1',
          commands: [{ name: 'deploy', description: 'Ship it', input: { hint: '<env>' } }],
        },
      },
    ]);
  });

  test('the commands of the initialization are announced, described; the first turn’s init names repeat nothing', () => {
    const { events, emit } = recordEvents();
    const projector = createStreamProjector({ emit });
    projector.announceCommands(
      [
        { name: 'deploy', description: 'Deploy the app (project)', argumentHint: '[env]' },
        { name: 'login', description: 'Sign in' },
        { name: 'compact', description: 'Free up context', argumentHint: '' },
      ],
      's1',
    );
    projector.project(
      { type: 'system', subtype: 'init', session_id: 's1', slash_commands: ['deploy', 'login', 'compact'] } as never,
      TURN,
    );
    assert.deepEqual(events, [
      {
        type: 'commands_updated',
        payload: {
          providerSessionId: 's1',
          commands: [
            { name: 'deploy', description: 'Deploy the app (project)', input: { hint: '[env]' } },
            { name: 'compact', description: 'Free up context' },
          ],
        },
      },
    ]);
  });

  test('compaction status and boundary messages become compact events', () => {
    const { events } = project([
      { type: 'system', subtype: 'status', status: 'compacting' },
      { type: 'system', subtype: 'compact_boundary', compact_metadata: { trigger: 'manual', pre_tokens: 9000 } },
    ]);
    assert.deepEqual(
      events.map((event) => event.type),
      ['compact_started', 'compact_completed'],
    );
  });

  test('an assistant message with an SDK error fails its text', () => {
    const { events } = project([
      {
        type: 'assistant',
        error: 'rate_limit',
        parent_tool_use_id: null,
        message: { id: 'msg_e', content: [{ type: 'text', text: 'API Error: rate limited' }] },
      },
    ]);
    assert.deepEqual(
      events.map((event) => [event.type, event.payload.content]),
      [['assistant_failed', 'API Error: rate limited']],
    );
  });

  test('subagent stream events are not root output', () => {
    const { events } = project([
      { type: 'stream_event', parent_tool_use_id: 'agent', event: { type: 'message_start', message: { id: 'm' } } },
      {
        type: 'stream_event',
        parent_tool_use_id: 'agent',
        event: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      },
      {
        type: 'stream_event',
        parent_tool_use_id: 'agent',
        event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'sub' } },
      },
    ]);
    assert.deepEqual(events, []);
  });

  test('PostToolUse of a non-plan tool, or from inside a subagent, publishes nothing', () => {
    const { events, emit } = recordEvents();
    const projector = createStreamProjector({ emit });
    const base = { session_id: 's', transcript_path: '/t', cwd: '/w', hook_event_name: 'PostToolUse' as const };
    projector.postToolUse(
      { ...base, tool_name: 'Bash', tool_input: {}, tool_response: {}, tool_use_id: 'b' },
      'b',
      TURN,
    );
    projector.postToolUse(
      {
        ...base,
        agent_id: 'a1',
        tool_name: 'TodoWrite',
        tool_input: { todos: [] },
        tool_response: {},
        tool_use_id: 't',
      },
      't',
      TURN,
    );
    assert.deepEqual(events, []);
  });
});

test('every event projected from the captured sequences matches its protocol schema', () => {
  const fixtures: SdkFixtureName[] = [
    'streamed-text',
    'text-and-tool',
    'todowrite',
    'taskcreate-update',
    'background-bash',
    'delegated-agent',
  ];
  let checked = 0;
  for (const name of fixtures) {
    const { events, projector } = run(loadSdkFixture(name));
    projector.completeBackgroundLaunches(TURN);
    for (const event of events) {
      const parsed = eventPayloadSchemas[event.type].safeParse(event.payload);
      assert.ok(parsed.success, `${name}: ${event.type} ${parsed.error?.message}`);
      checked++;
    }
  }
  assert.ok(checked > 80, `checked ${checked} events`);
});
