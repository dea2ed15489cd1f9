import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionEventPayloadSchemas, type ToolResultBlock, type ToolUseBlock } from '@outrigger/host-api';
import type { SidecarEvent, ToolCall } from '@outrigger/protocol';
import type { SessionEventDraft } from '../store/hostStore.ts';
import type { MessageRecord } from '../store/records.ts';
import { testSession } from '../store/testRecords.ts';
import { type Projection, SessionProjector } from './sessionProjector.ts';

/*
 * Hand-written edge cases of the pure projector: orders and duplicates the recorded fixtures do not
 * show. `Harness` accepts every projection (as a commit that always succeeds would) and keeps the
 * rows and events it produced.
 */

const SESSION = 's1';

class Harness {
  readonly projector = SessionProjector.fresh(testSession(SESSION));
  readonly events: SessionEventDraft[] = [];
  readonly rows = new Map<string, MessageRecord>();
  readonly projections: Projection[] = [];
  #now = 10_000;

  run(project: (projector: SessionProjector, now: number) => Projection): Projection {
    this.#now += 100;
    const projection = project(this.projector, this.#now);
    for (const event of projection.unit.sessionEvents ?? []) {
      // Every payload fits the contract once the store gives it a seq.
      sessionEventPayloadSchemas[event.type].parse({ ...event.data, seq: 1 });
      this.events.push(event);
    }
    for (const row of projection.unit.messages ?? []) this.rows.set(row.id, row);
    this.projector.accept(projection);
    this.projections.push(projection);
    return projection;
  }

  sidecar(type: string, payload: Record<string, unknown>): Projection {
    return this.run((p, now) =>
      p.projectSidecarEvent({ type, payload: { agentSessionId: SESSION, ...payload } } as unknown as SidecarEvent, now),
    );
  }

  /** A running user turn Claude accepted. */
  acceptedTurn(turnId: string): void {
    this.run((p, now) =>
      p.project(
        {
          type: 'acceptTurn',
          turnId: turnId,
          prompt: { prompt: 'do it', input: [], attachments: [], clientMessageId: null },
          queued: false,
        },
        now,
      ),
    );
    this.sidecar('provider_turn_identity_resolved', { turnId, providerTurnId: `p-${turnId}` });
  }

  types(turnId?: string): string[] {
    return this.events
      .filter((event) => turnId === undefined || ('turnId' in event.data && event.data.turnId === turnId))
      .map((event) => event.type);
  }

  toolRow(toolUseId: string): MessageRecord {
    const row = [...this.rows.values()].find((candidate) => candidate.toolUseId === toolUseId);
    assert.ok(row, `a row for ${toolUseId}`);
    return row;
  }
}

function call(
  turnId: string,
  id: string,
  overrides: Partial<ToolCall> & { metadataExtra?: Record<string, unknown> } = {},
) {
  const { metadataExtra, ...rest } = overrides;
  return {
    turnId,
    toolCallId: id,
    callId: id,
    toolName: 'Bash',
    callType: 'command',
    name: 'Bash',
    status: 'streaming',
    input: { command: 'ls', toolName: 'Bash' },
    locations: [],
    metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash', ...metadataExtra },
    ...rest,
  };
}

function result(turnId: string, id: string, source: 'hook' | 'canonical', text: string, failed = false) {
  return call(turnId, id, {
    status: failed ? 'failed' : 'completed',
    output: source === 'hook' ? { toolResponse: { stdout: text, stderr: '' } } : { text },
    metadataExtra: { resultSource: source },
  });
}

const tool = (row: MessageRecord) => row.content[0] as ToolUseBlock;
const results = (row: MessageRecord) =>
  row.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');

test('hook then canonical, and canonical then hook, both leave the canonical result', () => {
  for (const order of [
    ['hook', 'canonical'],
    ['canonical', 'hook'],
  ] as const) {
    const h = new Harness();
    h.acceptedTurn('t1');
    h.sidecar('tool_started', call('t1', 'tu'));
    for (const source of order) {
      h.sidecar(
        source === 'hook' ? 'tool_completed' : 'tool_failed',
        result('t1', 'tu', source, `${source} says`, source === 'canonical'),
      );
    }
    const row = h.toolRow('tu');
    assert.deepEqual(
      results(row).map((r) => [r.resultSource, r.content, r.is_error]),
      [['canonical', 'canonical says', true]],
      `${order.join(' → ')}: one result, the canonical one`,
    );
    assert.equal(tool(row).status, 'failed', 'the status is the canonical result’s');
    const published = h.events.flatMap((event) => (event.type === 'tool_result' ? [event.data] : []));
    assert.deepEqual(
      published.map((data) => data.result.resultSource),
      [...order],
      'the log keeps both results',
    );
    assert.deepEqual(
      published.map((data) => data.status),
      order[0] === 'hook' ? ['completed', 'failed'] : ['failed', 'failed'],
      'each tool_result carries the status after dedup',
    );
  }
});

test('equal rank: the last result wins; any real result replaces a synthesized one', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  h.sidecar('tool_started', call('t1', 'tu'));
  h.sidecar('tool_completed', result('t1', 'tu', 'hook', 'first'));
  h.sidecar('tool_completed', result('t1', 'tu', 'hook', 'second'));
  assert.deepEqual(
    results(h.toolRow('tu')).map((r) => r.content),
    ['second'],
  );

  h.sidecar('tool_started', call('t1', 'open'));
  h.sidecar('turn_canceled', { turnId: 't1' });
  assert.deepEqual(
    results(h.toolRow('open')).map((r) => [r.resultSource, r.is_error]),
    [['synthesized', true]],
    'an open call gets a synthesized error result when its turn ends',
  );
  h.sidecar('tool_completed', result('t1', 'open', 'canonical', 'late but real'));
  assert.deepEqual(
    results(h.toolRow('open')).map((r) => [r.resultSource, r.content]),
    [['canonical', 'late but real']],
  );
  assert.deepEqual(
    h.types('t1').filter((type) => type === 'done'),
    ['done'],
    'the late result reopened nothing',
  );
});

test('duplicated events change nothing the second time', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  const before = h.events.length;
  const twice = (type: string, payload: Record<string, unknown>) => {
    h.sidecar(type, payload);
    const second = h.sidecar(type, payload);
    assert.equal(second.empty, true, `a second ${type} is a no-op`);
  };
  twice('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p-t1' });
  twice('tool_started', call('t1', 'tu'));
  twice('assistant_delta', { turnId: 't1', messageId: 'a1', content: 'Hel', snapshot: 'Hel' });
  twice('assistant_completed', { turnId: 't1', messageId: 'a1', content: 'Hello' });
  twice('tool_completed', result('t1', 'tu', 'canonical', 'ok'));
  twice('approval_requested', {
    turnId: 't1',
    requestId: 'r1',
    toolCallId: 'tu2',
    toolName: 'Bash',
    input: {},
    options: [],
    toolCall: { toolCallId: 'tu2', name: 'Bash', title: 'Bash', toolName: 'Bash', input: {} },
  });
  twice('approval_resolved', { turnId: 't1', requestId: 'r1', action: 'allow', optionId: 'allow', payload: {} });
  twice('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  assert.ok(h.events.length > before);
  assert.equal(h.types('t1').filter((type) => type === 'done').length, 1);
  assert.equal(h.types('t1').filter((type) => type === 'tool_result').length, 1);
  assert.equal(h.types('t1').filter((type) => type === 'permission_request').length, 1);
  assert.equal([...h.rows.values()].filter((row) => row.role === 'assistant').length, 2, 'one text row, one tool row');
});

test('output before identity fails the turn closed: nothing of it is kept, one done, later output dropped', () => {
  const h = new Harness();
  h.run((p, now) =>
    p.project(
      {
        type: 'acceptTurn',
        turnId: 't1',
        prompt: { prompt: 'go', input: [], attachments: [], clientMessageId: null },
        queued: false,
      },
      now,
    ),
  );
  const violation = h.sidecar('assistant_delta', { turnId: 't1', messageId: 'a1', content: 'leak', snapshot: 'leak' });
  assert.equal(violation.identityViolationTurnId, 't1');
  assert.deepEqual(violation.endedTurnIds, ['t1']);
  assert.deepEqual(h.types('t1'), ['turn_started', 'result', 'done']);
  const done = h.events.find((event) => event.type === 'done');
  assert.ok(done?.type === 'done' && done.data.outcome === 'failed' && done.data.error?.code === 'identity_violation');
  assert.equal([...h.rows.values()].filter((row) => row.role === 'assistant').length, 0, 'no output row');

  const late = h.sidecar('assistant_completed', { turnId: 't1', messageId: 'a1', content: 'leak' });
  assert.equal(late.empty, true);
  assert.ok(late.dropped);
  const terminal = h.sidecar('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  assert.equal(terminal.empty, true, 'no second done');
  assert.equal(h.projector.session.status, 'failed');
  assert.equal(h.projector.session.lastError?.code, 'identity_violation');
});

test('a second, different identity fails the turn closed', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  const second = h.sidecar('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'someone-else' });
  assert.equal(second.identityViolationTurnId, 't1');
  assert.equal(h.projector.turn('t1')?.providerTurnId, 'p-t1', 'the first binding stays');
  assert.equal(h.projector.turn('t1')?.status, 'failed');
});

test('subagent work after the root turn’s done is stored under it; the turn is never reopened', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  h.sidecar('tool_started', call('t1', 'agent', { toolName: 'Agent', name: 'Agent', callType: 'subagent', input: {} }));
  h.sidecar('task_started', {
    turnId: 't1',
    parentToolUseId: 'agent',
    toolCallId: 'agent',
    callId: 'agent',
    taskId: 'task-1',
    status: 'running',
    description: 'look around',
    input: {},
    metadata: {
      adapter: 'claude-agent-sdk',
      parentToolUseId: 'agent',
      async: true,
      subagentAsync: true,
      taskStatus: 'running',
      subagentStatus: 'running',
    },
  });
  h.sidecar('tool_completed', result('t1', 'agent', 'canonical', 'Async agent launched'));
  h.sidecar(
    'tool_started',
    call('t1', 'sub-open', { metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash', parentToolUseId: 'agent' } }),
  );
  h.sidecar('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  assert.equal(tool(h.toolRow('sub-open')).status, 'running', 'a completed root keeps its subagent’s call open');
  assert.equal(h.projector.session.status, 'running', 'background work keeps the session running');
  assert.equal(h.projector.session.runningTurnId, null);

  h.sidecar(
    'tool_started',
    call('t1', 'sub2', { metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash', parentToolUseId: 'agent' } }),
  );
  h.sidecar('tool_completed', result('t1', 'sub2', 'canonical', 'listed'));
  assert.equal(h.toolRow('sub2').turnId, 't1');
  assert.equal(h.projector.turn('t1')?.status, 'completed');
  h.sidecar('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  assert.equal(h.types('t1').filter((type) => type === 'done').length, 1, 'no second done');

  h.sidecar('task_completed', {
    turnId: 't1',
    parentToolUseId: 'agent',
    toolCallId: 'agent',
    callId: 'agent',
    taskId: 'task-1',
    status: 'completed',
    summary: 'done looking',
    input: {},
    metadata: {
      adapter: 'claude-agent-sdk',
      parentToolUseId: 'agent',
      async: true,
      subagentAsync: true,
      taskStatus: 'completed',
      subagentStatus: 'completed',
    },
  });
  assert.deepEqual(h.projector.session.backgroundTasks, []);
  assert.equal(tool(h.toolRow('agent')).agentTask?.summary, 'done looking');
  assert.deepEqual(
    results(h.toolRow('sub-open')).map((r) => r.resultSource),
    ['synthesized'],
    'the call the ended agent left open got its result',
  );
  assert.equal(h.projector.session.status, 'idle');
});

test('a failed or canceled turn interrupts its streaming text and closes every open call', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  h.sidecar('thinking_delta', { turnId: 't1', messageId: 'th', content: 'hm', snapshot: 'hm' });
  h.sidecar('assistant_delta', { turnId: 't1', messageId: 'a1', content: 'part', snapshot: 'part' });
  h.sidecar('tool_started', call('t1', 'tu'));
  h.sidecar('turn_failed', { turnId: 't1', error: 'API Error: 500', code: 'api_error', apiErrorStatus: 500 });
  const rows = [...h.rows.values()].filter((row) => row.role === 'assistant');
  assert.deepEqual(
    rows.map((row) => row.status),
    ['interrupted', 'interrupted', 'complete'],
  );
  assert.deepEqual(
    results(h.toolRow('tu')).map((r) => r.resultSource),
    ['synthesized'],
  );
  assert.deepEqual(h.types('t1').slice(-5), ['thinking', 'text', 'tool_result', 'result', 'done']);
  const tail = h.types('t1').slice(-2);
  assert.deepEqual(tail, ['result', 'done']);
  const result = h.events.find((event) => event.type === 'result');
  assert.ok(result?.type === 'result');
  assert.deepEqual(result.data.error, { message: 'API Error: 500', code: 'api_error', apiErrorStatus: 500 });
  assert.equal(h.projector.session.status, 'failed');
  assert.equal(h.projector.session.lastError?.apiErrorStatus, 500);

  h.acceptedTurn('t2');
  assert.equal(h.projector.session.status, 'running');
  h.sidecar('turn_completed', { turnId: 't2', stopReason: 'end_turn' });
  assert.equal(h.projector.session.status, 'idle', 'a turn that ran since clears failed');
  assert.equal(h.projector.session.lastError, null);
});

/** Turn `t1` runs a Bash call `tu` whose approval `r1` waits for the person. */
function pendingApproval(h: Harness, command: string): void {
  h.acceptedTurn('t1');
  h.sidecar('tool_started', call('t1', 'tu'));
  h.sidecar('approval_requested', {
    turnId: 't1',
    requestId: 'r1',
    toolCallId: 'tu',
    toolName: 'Bash',
    input: { command },
    options: [{ kind: 'allow_once', name: 'Allow', optionId: 'allow' }],
    toolCall: { toolCallId: 'tu', name: 'Bash', title: 'Bash', toolName: 'Bash', input: {} },
  });
}

test('the sidecar exiting fails every running turn, supersedes what is pending and clears background work', () => {
  const h = new Harness();
  pendingApproval(h, 'rm -rf build');
  assert.equal(h.projector.session.status, 'needs_input');
  const exit = h.run((p, now) =>
    p.project(
      {
        type: 'sidecarExited',
        error: { message: 'sidecar exited: boom', code: 'sidecar_exited', apiErrorStatus: null },
      },
      now,
    ),
  );
  assert.deepEqual(exit.endedTurnIds, ['t1']);
  assert.equal(h.projector.interaction('r1')?.status, 'superseded');
  assert.equal(h.projector.interaction('r1')?.resolution, 'sidecar_exited');
  assert.equal(exit.unit.hostEvents?.filter((event) => event.type === 'permission_resolved').length, 1);
  assert.deepEqual(h.types('t1').slice(-2), ['result', 'done']);
  assert.equal(h.projector.session.status, 'failed');
  assert.equal(h.projector.session.lastError?.code, 'sidecar_exited');
});

test('a pending approval a clean stop ends says the host was stopped; one a start finds says it restarted', () => {
  for (const stopping of [true, false]) {
    const h = new Harness();
    pendingApproval(h, 'ls');
    h.run((p, now) => p.project({ type: 'recoverAfterRestart', stopping }, now));
    assert.equal(h.projector.interaction('r1')?.status, 'superseded');
    assert.equal(h.projector.interaction('r1')?.resolution, stopping ? 'host_stopped' : 'host_restarted');
  }
});

test('after a restart a running turn is interrupted with one done and no result', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  h.sidecar('assistant_delta', { turnId: 't1', messageId: 'a1', content: 'half', snapshot: 'half' });
  const recovered = h.run((p, now) => p.project({ type: 'recoverAfterRestart' }, now));
  assert.deepEqual(recovered.endedTurnIds, ['t1']);
  assert.deepEqual(h.types('t1').slice(-2), ['text', 'done']);
  const done = h.events.at(-2);
  assert.ok(done?.type === 'done' && done.data.outcome === 'interrupted' && done.data.error?.code === 'host_restarted');
  assert.equal(
    h.run((p, now) => p.project({ type: 'recoverAfterRestart' }, now)).empty,
    true,
    'recovering twice does nothing more',
  );
});

test('Claude Code’s choices reach clients as they arrive; the effective model is the option’s, not the selection', () => {
  const h = new Harness();
  const configOptions = [
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: 'default',
      effectiveValue: 'claude-opus-5-5',
      options: [{ value: 'default', name: 'Default (recommended)' }],
    },
  ];
  h.sidecar('session_started', { providerSessionId: 'p', model: 'default', configOptions, resumeCursor: null });
  assert.equal(h.projector.session.effectiveModel, 'claude-opus-5-5');
  const settings = h.events.filter((event) => event.type === 'settings');
  assert.equal(settings.length, 1);
  assert.ok(settings[0]?.type === 'settings');
  assert.equal(settings[0].data.effectiveModel, 'claude-opus-5-5');
  assert.deepEqual(settings[0].data.configOptions, configOptions);
  const again = h.sidecar('session_state', {
    providerSessionId: 'p',
    model: 'default',
    configOptions,
    resumeCursor: null,
  });
  assert.equal(again.empty, true, 'the same choices again say nothing');
});

test('the slash commands Claude Code reports are kept with the session; the same list again writes nothing', () => {
  const h = new Harness();
  const commands = [{ name: 'deploy', description: 'Deploy the app (project)', input: { hint: '[env]' } }];
  const first = h.sidecar('commands_updated', { providerSessionId: 'p', commands });
  assert.equal(first.empty, false);
  assert.deepEqual(first.unit.sessions?.[0]?.slashCommands, commands);
  assert.deepEqual(h.projector.session.slashCommands, commands);
  assert.equal(h.sidecar('commands_updated', { providerSessionId: 'p', commands }).empty, true);
  const changed = h.sidecar('commands_updated', { providerSessionId: 'p', commands: [] });
  assert.deepEqual(changed.unit.sessions?.[0]?.slashCommands, []);
});

test('the agent’s first title names the session; its later titles (one per turn) do not rename it', () => {
  const h = new Harness();
  assert.equal(h.projector.session.titleSource, 'default');
  h.sidecar('session_title_updated', { providerSessionId: 'p', title: 'Show me a markdown answer' });
  const later = h.sidecar('session_title_updated', {
    providerSessionId: 'p',
    title: 'Make a plan and work through it',
  });
  assert.equal(later.empty, true);
  assert.equal(h.projector.session.title, 'Show me a markdown answer');
  assert.equal(h.projector.session.titleSource, 'agent');
  assert.deepEqual(
    h.events.flatMap((event) => (event.type === 'title' ? [event.data.title] : [])),
    ['Show me a markdown answer'],
  );
});

test('the user’s rename wins over the agent’s title', () => {
  const h = new Harness();
  h.sidecar('session_title_updated', { providerSessionId: 'p', title: 'Agent title' });
  assert.equal(h.projector.session.title, 'Agent title');
  h.run((p, now) => p.project({ type: 'rename', title: 'Mine' }, now));
  const ignored = h.sidecar('session_title_updated', { providerSessionId: 'p', title: 'Agent again' });
  assert.equal(ignored.empty, true);
  assert.equal(h.projector.session.title, 'Mine');
  assert.equal(h.projector.session.titleSource, 'user');
  assert.deepEqual(
    h.events.flatMap((event) => (event.type === 'title' ? [event.data.title] : [])),
    ['Agent title', 'Mine'],
  );
});

test('usage sums per turn and session; an unknown cost is null, a reported one replaces the turn’s own', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  h.sidecar('usage_updated', { turnId: 't1', usage: { input_tokens: 10, output_tokens: 5 } });
  h.sidecar('usage_updated', {
    turnId: 't1',
    usage: { input_tokens: 20, output_tokens: 1, cache_read_input_tokens: 7 },
  });
  assert.deepEqual(h.projector.turn('t1')?.usage, {
    inputTokens: 30,
    outputTokens: 6,
    cacheReadInputTokens: 7,
    cacheCreationInputTokens: null,
    costUsd: null,
  });
  assert.equal(h.projector.session.usage.totalCostUsd, null);
  h.sidecar('usage_updated', { turnId: 't1', totalCostUsd: 0.25 });
  h.sidecar('usage_updated', { turnId: 't1', totalCostUsd: 0.5 });
  h.acceptedTurn('t2');
  h.sidecar('usage_updated', { turnId: 't2', totalCostUsd: 0.125 });
  assert.equal(h.projector.session.usage.totalCostUsd, 0.625);
  assert.equal(h.projector.session.usage.inputTokens, 30);
  h.sidecar('usage_updated', {
    turnId: 't2',
    contextWindow: { usedTokens: 900, totalTokens: 1000, compactsAutomatically: true },
  });
  assert.equal(h.projector.session.usage.contextWindow?.usedTokens, 900);
});

test('queued prompts: queue, start in order, and a removed one gets its own canceled done', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  const prompt = (text: string) => ({ prompt: text, input: [], attachments: [], clientMessageId: `c-${text}` });
  h.run((p, now) => p.project({ type: 'acceptTurn', turnId: 't2', prompt: prompt('second'), queued: true }, now));
  h.run((p, now) => p.project({ type: 'acceptTurn', turnId: 't3', prompt: prompt('third'), queued: true }, now));
  assert.deepEqual(
    h.projector.queuedTurns().map((turn) => turn.id),
    ['t2', 't3'],
  );
  const queues = h.events.flatMap((event) =>
    event.type === 'queue' ? [event.data.queuedPrompts.map((q) => q.turnId)] : [],
  );
  assert.deepEqual(queues, [['t2'], ['t2', 't3']]);
  const removed = h.run((p, now) => p.project({ type: 'cancelQueuedTurn', turnId: 't3' }, now));
  assert.deepEqual(removed.endedTurnIds, ['t3']);
  assert.deepEqual(h.types('t3'), ['turn_canceled', 'done']);
  const canceled = h.events.find((event) => event.type === 'turn_canceled');
  assert.ok(canceled?.type === 'turn_canceled' && canceled.data.disposition === 'pre_accept');
  h.sidecar('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  h.run((p, now) => p.project({ type: 'startQueuedTurn', turnId: 't2' }, now, { imageBytes: new Map() }));
  assert.deepEqual(h.types('t2'), ['turn_started']);
  assert.equal(h.projector.runningUserTurn()?.id, 't2');
  assert.deepEqual(h.projector.queuedTurns(), []);
  assert.equal(h.projector.session.status, 'running', 'a canceled queued turn that never ran does not make it failed');
});

test('Stop must stop: pause, edit and resume change the queue event and queuePaused; the status is not running', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  const prompt = (text: string) => ({ prompt: text, input: [], attachments: [], clientMessageId: `c-${text}` });
  h.run((p, now) => p.project({ type: 'acceptTurn', turnId: 't2', prompt: prompt('second'), queued: true }, now));
  h.run((p, now) => p.project({ type: 'pauseQueue' }, now));
  const lastQueue = () => h.events.findLast((event) => event.type === 'queue');
  const lastStatus = () => h.events.findLast((event) => event.type === 'status');
  assert.deepEqual(
    lastQueue()?.type === 'queue' && lastQueue()!.data.queuedPrompts.map((q) => [q.turnId, q.prompt, q.paused]),
    [['t2', 'second', true]],
  );
  assert.equal(h.projector.session.queuePaused, true);
  assert.ok(lastStatus()?.type === 'status' && lastStatus()!.data.queuePaused === true);
  h.sidecar('turn_canceled', { turnId: 't1' });
  assert.equal(h.projector.session.status, 'idle', 'paused prompts do not make the session running');
  assert.equal(h.projector.session.runningTurnId, null);
  h.run((p, now) => p.project({ type: 'editQueuedTurn', turnId: 't2', prompt: 'second, edited' }, now));
  assert.equal(h.projector.turn('t2')?.prompt, 'second, edited');
  assert.equal(h.projector.turn('t2')?.clientMessageId, 'c-second', 'the edit keeps the id');
  h.run((p, now) => p.project({ type: 'resumeQueue' }, now));
  assert.deepEqual(lastQueue()?.type === 'queue' && lastQueue()!.data.queuedPrompts.map((q) => [q.prompt, q.paused]), [
    ['second, edited', false],
  ]);
  assert.equal(h.projector.session.queuePaused, false);
  const summaries = h.projections.flatMap((projection) =>
    (projection.unit.hostEvents ?? []).flatMap((event) =>
      event.type === 'session' ? [event.data.session.queuePaused] : [],
    ),
  );
  assert.deepEqual([summaries.includes(true), summaries.at(-1)], [true, false], 'the sidebar hears of both');
});

test('the summary says when the running turn started, on every host session event; null once none runs', () => {
  const h = new Harness();
  const prompt = (text: string) => ({ prompt: text, input: [], attachments: [], clientMessageId: `c-${text}` });
  const summaries = () =>
    h.projections.flatMap((projection) =>
      (projection.unit.hostEvents ?? []).flatMap((event) =>
        event.type === 'session'
          ? [{ runningTurnId: event.data.session.runningTurnId, startedAt: event.data.session.runningTurnStartedAt }]
          : [],
      ),
    );
  h.acceptedTurn('t1');
  const t1Started = h.projector.turn('t1')?.startedAt;
  assert.equal(typeof t1Started, 'number');
  h.run((p, now) => p.project({ type: 'acceptTurn', turnId: 't2', prompt: prompt('second'), queued: true }, now));
  h.sidecar('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  assert.equal(h.projector.session.runningTurnStartedAt, null);
  h.run((p, now) => p.project({ type: 'startQueuedTurn', turnId: 't2' }, now, { imageBytes: new Map() }));
  const t2Started = h.projector.turn('t2')?.startedAt;
  assert.ok(typeof t2Started === 'number' && t2Started > (t1Started as number));
  h.sidecar('provider_turn_identity_resolved', { turnId: 't2', providerTurnId: 'p-t2' });
  h.sidecar('turn_completed', { turnId: 't2', stopReason: 'end_turn' });
  assert.deepEqual(summaries(), [
    { runningTurnId: 't1', startedAt: t1Started },
    { runningTurnId: null, startedAt: null },
    { runningTurnId: 't2', startedAt: t2Started },
    { runningTurnId: null, startedAt: null },
  ]);
  assert.equal(h.projector.session.runningTurnStartedAt, null);
});

test('a steer is its own user row in the running turn', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  h.run((p, now) =>
    p.project(
      {
        type: 'steer',
        turnId: 't1',
        prompt: { prompt: 'also this', input: [], attachments: [], clientMessageId: 'c9' },
      },
      now,
    ),
  );
  const message = h.events.at(-1);
  assert.ok(message?.type === 'user_message');
  assert.equal(message.data.message.steer, true);
  assert.equal(message.data.message.clientMessageId, 'c9');
  assert.equal(message.data.turnId, 't1');
});

test('an ExitPlanMode answer switches the permission mode (mode_changed)', () => {
  const h = new Harness();
  h.run((p, now) => p.project({ type: 'changeSettings', patch: { permissionMode: 'plan', planMode: true } }, now));
  h.acceptedTurn('t1');
  h.sidecar('user_input_requested', {
    turnId: 't1',
    requestId: 'plan-1',
    toolCallId: 'tu',
    toolName: 'ExitPlanMode',
    input: { plan: 'the plan' },
    options: [{ kind: 'allow_once', name: 'Accept edits', optionId: 'acceptEdits' }],
    toolCall: { toolCallId: 'tu', name: 'ExitPlanMode', title: 'Plan', toolName: 'ExitPlanMode', input: {} },
  });
  assert.equal(h.projector.interaction('plan-1')?.kind, 'plan');
  h.run((p, now) =>
    p.project(
      {
        type: 'interactionAnswered',
        requestId: 'plan-1',
        answer: { action: 'allow', optionId: 'acceptEdits', payload: {} },
      },
      now,
    ),
  );
  assert.deepEqual(h.projector.session.settings, {
    model: 'default',
    permissionMode: 'acceptEdits',
    planMode: false,
    effort: null,
  });
  const modes = h.events.flatMap((event) => (event.type === 'mode_changed' ? [event.data.permissionMode] : []));
  assert.deepEqual(modes, ['plan', 'acceptEdits']);
});

test('compaction is one system notice row, started then completed', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  h.sidecar('compact_started', { turnId: 't1', content: 'Compacting...' });
  h.sidecar('compact_completed', { turnId: 't1', content: 'Compacting completed.' });
  const notices = [...h.rows.values()].filter((row) => row.role === 'system');
  assert.equal(notices.length, 1);
  assert.equal(notices[0]?.noticeKind, 'compaction');
  assert.equal(notices[0]?.status, 'complete');
  assert.deepEqual(h.types('t1').filter((type) => type === 'notice').length, 2);
});

test('a background command is background work until nothing runs any more', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  const launched = call('t1', 'bg', {
    input: { command: 'sleep 5', run_in_background: true, description: 'wait', toolName: 'Bash' },
    output: { text: 'Command running in background with ID: b1' },
    metadataExtra: { backgroundProcess: { taskId: 'b1', status: 'running' } },
  });
  h.sidecar('tool_updated', launched);
  assert.deepEqual(
    h.projector.session.backgroundTasks.map((task) => [task.kind, task.taskId, task.description]),
    [['command', 'b1', 'wait']],
  );
  assert.ok(h.types('t1').includes('tool_output'));
  h.sidecar('tool_completed', {
    ...launched,
    status: 'completed',
    metadata: { ...launched.metadata, resultSource: 'canonical' },
  });
  h.sidecar('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  assert.equal(h.projector.session.status, 'running');
  h.sidecar('background_tasks_changed', {
    turnId: 't1',
    runningCount: 0,
    backgroundTasksObservedCount: 1,
    backgroundTasksRunningCount: 0,
    backgroundTasksNoLongerLiveCount: 1,
    delegatedTasksKnownCount: 0,
    delegatedTasksRunningCount: 0,
    delegatedTasksCompletedCount: 0,
    delegatedTasksFailedCount: 0,
    delegatedTasksStoppedCount: 0,
  });
  assert.deepEqual(h.projector.session.backgroundTasks, []);
  assert.equal(h.projector.session.status, 'idle');
  assert.deepEqual(
    tool(h.toolRow('bg')).background,
    { taskId: 'b1', status: 'completed' },
    'the call no longer says running',
  );
  const announced = h.events.filter((event) => event.type === 'tool_use').at(-1);
  assert.ok(announced?.type === 'tool_use' && announced.data.tool.background?.status === 'completed');
});

test('background work the sidecar took down with it says stopped on its call', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  const launched = call('t1', 'bg', {
    input: { command: 'sleep 50', run_in_background: true, toolName: 'Bash' },
    output: { text: 'Command running in background with ID: b2' },
    metadataExtra: { backgroundProcess: { taskId: 'b2', status: 'running' } },
  });
  h.sidecar('tool_updated', launched);
  h.sidecar('tool_completed', {
    ...launched,
    status: 'completed',
    metadata: { ...launched.metadata, resultSource: 'canonical' },
  });
  h.sidecar('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  h.run((p, now) =>
    p.project(
      {
        type: 'sidecarExited',
        error: { message: 'sidecar exited: killed', code: 'sidecar_exited', apiErrorStatus: null },
      },
      now,
    ),
  );
  assert.deepEqual(h.projector.session.backgroundTasks, []);
  assert.equal(tool(h.toolRow('bg')).background?.status, 'stopped');
});

test('a projection not accepted (its commit failed) leaves the projector unchanged', () => {
  const h = new Harness();
  h.acceptedTurn('t1');
  const before = JSON.stringify([h.projector.session, h.projector.turn('t1')]);
  const projection = h.projector.projectSidecarEvent(
    { type: 'turn_completed', payload: { turnId: 't1', stopReason: 'end_turn' } },
    99_999,
  );
  assert.equal(projection.endedTurnIds[0], 't1');
  assert.equal(JSON.stringify([h.projector.session, h.projector.turn('t1')]), before);
  assert.equal(h.projector.turn('t1')?.status, 'running');
});

test('events of unknown turns are dropped and say why', () => {
  const h = new Harness();
  const dropped = h.sidecar('assistant_delta', { turnId: 'nobody', messageId: 'a', content: 'x', snapshot: 'x' });
  assert.equal(dropped.empty, true);
  assert.match(dropped.dropped ?? '', /unknown turn/);
  assert.equal(h.sidecar('turn_completed', { turnId: 'nobody', stopReason: 'end_turn' }).empty, true);
});
