import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionEventPayloadSchemas, type ToolUseBlock } from '@outrigger/host-api';
import type { SidecarEvent } from '@outrigger/protocol';
import type { SessionEventDraft } from '../store/hostStore.ts';
import type { MessageRecord } from '../store/records.ts';
import { testSession } from '../store/testRecords.ts';
import type { SessionCommand } from './sessionCommand.ts';
import { type Projection, SessionProjector } from './sessionProjector.ts';

/*
 * How a call ended and what the person decided, stored on the tool row: a client that loads the rows
 * after a reload reads the same as one that applied the events live (the `tool_use` / `tool_result`
 * events carry the stored block). Heartbeats move a running call's elapsed time and never add a call.
 */

const SESSION = 's1';

class Harness {
  readonly projector = SessionProjector.fresh(testSession(SESSION));
  readonly events: SessionEventDraft[] = [];
  readonly rows = new Map<string, MessageRecord>();
  now = 10_000;

  run(project: (projector: SessionProjector, now: number) => Projection, step = 100): void {
    this.now += step;
    const projection = project(this.projector, this.now);
    for (const event of projection.unit.sessionEvents ?? []) {
      sessionEventPayloadSchemas[event.type].parse({ ...event.data, seq: 1 });
      this.events.push(event);
    }
    for (const row of projection.unit.messages ?? []) this.rows.set(row.id, row);
    this.projector.accept(projection);
  }

  sidecar(type: string, payload: Record<string, unknown>, step?: number): void {
    this.run(
      (p, now) =>
        p.projectSidecarEvent(
          { type, payload: { agentSessionId: SESSION, ...payload } } as unknown as SidecarEvent,
          now,
        ),
      step,
    );
  }

  command(command: SessionCommand, step?: number): void {
    this.run((p, now) => p.project(command, now), step);
  }

  turn(turnId = 't1'): void {
    this.command({
      type: 'acceptTurn',
      turnId,
      prompt: { prompt: 'do it', input: [], attachments: [], clientMessageId: null },
      queued: false,
    });
    this.sidecar('provider_turn_identity_resolved', { turnId, providerTurnId: `p-${turnId}` });
  }

  tool(toolUseId: string): ToolUseBlock {
    const row = [...this.rows.values()].find((candidate) => candidate.toolUseId === toolUseId);
    assert.ok(row, `a row for ${toolUseId}`);
    return row.content[0] as ToolUseBlock;
  }

  toolRows(): string[] {
    return [...this.rows.values()].flatMap((row) => (row.toolUseId === null ? [] : [row.toolUseId]));
  }

  /** The tool block as a live client last heard it: the latest `tool_use` or `tool_result` event's `tool`. */
  liveTool(toolUseId: string): ToolUseBlock | undefined {
    let latest: ToolUseBlock | undefined;
    for (const event of this.events) {
      if (event.type === 'tool_use' && event.data.tool.id === toolUseId) latest = event.data.tool;
      if (event.type === 'tool_result' && event.data.tool_use_id === toolUseId) latest = event.data.tool;
    }
    return latest;
  }
}

function call(id: string, overrides: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) {
  return {
    turnId: 't1',
    toolCallId: id,
    callId: id,
    toolName: 'Bash',
    callType: 'command',
    name: 'Bash',
    status: 'streaming',
    input: { command: 'touch a.txt', toolName: 'Bash' },
    locations: [],
    metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash', ...metadata },
    ...overrides,
  };
}

const failedWith = (id: string, text: string) =>
  call(id, { status: 'failed', output: { text }, error: text }, { resultSource: 'canonical' });

const allowAlways = {
  kind: 'allow_always',
  name: 'Allow for session',
  optionId: 'allow_always',
  sessionGrant: { rules: ['Bash(npm test:*)'], directories: [] },
};

function ask(h: Harness, id: string, toolName = 'Bash', input: Record<string, unknown> = { command: 'touch a.txt' }) {
  h.sidecar(toolName === 'AskUserQuestion' ? 'user_input_requested' : 'approval_requested', {
    turnId: 't1',
    requestId: `r-${id}`,
    toolCallId: id,
    toolName,
    input,
    options:
      toolName === 'AskUserQuestion'
        ? []
        : [
            allowAlways,
            { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
            { kind: 'reject_once', name: 'Reject', optionId: 'reject' },
          ],
  });
}

test('a denial with a reason is stored as denied, with the reason, live and on the row alike', () => {
  const h = new Harness();
  h.turn();
  h.sidecar('tool_started', call('tu'));
  ask(h, 'tu');
  h.command({
    type: 'interactionAnswered',
    requestId: 'r-tu',
    answer: { action: 'reject', optionId: 'reject', payload: { denyMessage: 'not now' } },
  });
  assert.equal(h.tool('tu').decision?.choice, 'denied', 'the decision is on the row before the result');
  h.sidecar('tool_failed', failedWith('tu', 'not now'));
  const stored = h.tool('tu');
  assert.equal(stored.status, 'failed');
  assert.equal(stored.outcome, 'denied');
  assert.equal(stored.decision?.denyMessage, 'not now');
  assert.deepEqual(h.liveTool('tu'), stored, 'the last event carries exactly the stored block');
});

test('allowed once and allowed for the session (with what the grant covers) stay on the call', () => {
  const h = new Harness();
  h.turn();
  for (const [id, optionId] of [
    ['once', 'allow'],
    ['session', 'allow_always'],
  ] as const) {
    h.sidecar('tool_started', call(id));
    ask(h, id);
    h.command({
      type: 'interactionAnswered',
      requestId: `r-${id}`,
      answer: { action: 'allow', optionId, payload: {} },
    });
    h.sidecar(
      'tool_completed',
      call(id, { status: 'completed', output: { text: 'made' } }, { resultSource: 'canonical' }),
    );
  }
  assert.equal(h.tool('once').decision?.choice, 'allowed_once');
  assert.equal(h.tool('once').decision?.sessionGrant, null);
  assert.equal(h.tool('session').decision?.choice, 'allowed_for_session');
  assert.deepEqual(h.tool('session').decision?.sessionGrant, { rules: ['Bash(npm test:*)'], directories: [] });
  assert.equal(h.tool('session').outcome, 'completed');
  assert.deepEqual(h.liveTool('session'), h.tool('session'));
});

test('an answered question keeps each question with its chosen answers', () => {
  const h = new Harness();
  h.turn();
  const input = {
    questions: [
      { id: 'q1', question: 'Which database?', header: 'DB', multiSelect: false, options: [{ label: 'SQLite' }] },
      { id: 'q2', question: 'Extras?', header: 'Extras', multiSelect: true, options: [{ label: 'Cache' }] },
    ],
  };
  h.sidecar(
    'tool_started',
    call('q', { toolName: 'AskUserQuestion', name: 'AskUserQuestion', callType: 'interactive', input }),
  );
  ask(h, 'q', 'AskUserQuestion', input);
  h.command({
    type: 'interactionAnswered',
    requestId: 'r-q',
    answer: {
      action: 'allow',
      optionId: 'allow',
      payload: {
        answersByQuestionId: { q1: 'SQLite', q2: ['Cache', 'Metrics'] },
        annotations: { q1: { notes: 'small' } },
      },
    },
  });
  assert.deepEqual(h.tool('q').decision?.questions, [
    { question: 'Which database?', header: 'DB', answers: ['SQLite'], notes: 'small' },
    { question: 'Extras?', header: 'Extras', answers: ['Cache', 'Metrics'], notes: null },
  ]);
});

test('a decision made before the call row exists is picked up when the row appears', () => {
  const h = new Harness();
  h.turn();
  ask(h, 'late');
  h.command({
    type: 'interactionAnswered',
    requestId: 'r-late',
    answer: { action: 'allow', optionId: 'allow', payload: {} },
  });
  h.sidecar('tool_started', call('late'));
  assert.equal(h.tool('late').decision?.choice, 'allowed_once');
});

test('a stop cancels the running call (canceled, not failed); a timed-out call stays timed_out', () => {
  const h = new Harness();
  h.turn();
  h.sidecar('tool_started', call('slow'));
  h.sidecar(
    'tool_failed',
    failedWith('slow', "The user doesn't want to proceed with this tool use. The tool use was rejected."),
  );
  assert.equal(h.tool('slow').outcome, 'canceled');

  h.sidecar('tool_started', call('hung'));
  h.command({ type: 'toolTimedOut', turnId: 't1', toolUseId: 'hung', toolName: 'Bash', elapsedSeconds: 5 });
  assert.equal(h.tool('hung').outcome, 'timed_out');
  assert.equal(h.tool('hung').status, 'running');
  h.sidecar('tool_started', call('open'));
  h.sidecar('turn_canceled', { turnId: 't1' });
  assert.equal(h.tool('hung').outcome, 'timed_out', 'the cancel that follows a time-out keeps the time-out');
  assert.equal(h.tool('open').outcome, 'canceled', 'a call the cancel left open');
});

test('a call cut short by the host stopping is stopped; a real error is failed', () => {
  const h = new Harness();
  h.turn();
  h.sidecar('tool_started', call('bad'));
  h.sidecar('tool_failed', failedWith('bad', 'exit code 1'));
  assert.equal(h.tool('bad').outcome, 'failed');
  h.sidecar('tool_started', call('cut'));
  h.command({ type: 'recoverAfterRestart' });
  assert.equal(h.tool('cut').outcome, 'stopped');
});

test('a heartbeat moves the running call on and never becomes a call, whatever the sidecar sent', () => {
  const h = new Harness();
  h.turn();
  h.sidecar('tool_started', call('tu'));
  const events = h.events.length;
  // As a sidecar that does not fold heartbeats sends them: a call of its own under the running one.
  h.sidecar(
    'tool_updated',
    call('tu-heartbeat-0', { toolName: '', name: '', input: {} }, { parentToolUseId: 'tu', elapsedSeconds: 30 }),
  );
  // As this sidecar sends them: progress of the running call.
  h.sidecar('tool_updated', call('tu', {}, { elapsedSeconds: 60 }));
  assert.deepEqual(h.toolRows(), ['tu']);
  assert.equal(h.tool('tu').elapsedSeconds, 60);
  assert.deepEqual(
    h.events
      .slice(events)
      .map((event) => [event.type, event.type === 'tool_use' ? event.data.tool.elapsedSeconds : null]),
    [
      ['tool_use', 30],
      ['tool_use', 60],
    ],
  );
  h.sidecar('tool_completed', call('tu', { status: 'completed', output: { text: '' } }, { resultSource: 'canonical' }));
  h.sidecar('turn_completed', { turnId: 't1', stopReason: 'end_turn' });
  assert.deepEqual(h.toolRows(), ['tu']);
  assert.equal(h.tool('tu').outcome, 'completed');
});

test("a call's duration is the host's endedAt - startedAt, also in the events a live client applies", () => {
  const h = new Harness();
  h.turn();
  h.sidecar('tool_started', call('quick'));
  h.sidecar(
    'tool_completed',
    call('quick', { status: 'completed', output: { text: 'ok' } }, { resultSource: 'canonical' }),
    623,
  );
  const stored = h.tool('quick');
  assert.equal(stored.endedAt! - stored.startedAt, 623);
  assert.deepEqual(h.liveTool('quick'), stored);
});
