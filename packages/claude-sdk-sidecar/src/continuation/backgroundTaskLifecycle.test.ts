import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { EmitEvent } from '@outrigger/protocol';
import { loadSdkFixture, type SdkFixtureName } from '../projection/fixtures/sdkFixtures.ts';
import {
  BackgroundTaskLifecycle,
  type BackgroundTaskLifecycleOptions,
  type ContinuationStopReason,
  type ContinuationTurns,
} from './backgroundTaskLifecycle.ts';
import { ManualTimers } from './manualTimers.ts';

type Recorded = [string, unknown?];

/** A Turn queue double: one active Turn at most; what it is asked to do lands in the same log as events. */
class FakeTurns implements ContinuationTurns {
  active: { turnId: string; synthetic: boolean } | undefined;
  interruptFailure: Error | undefined;
  #synthetics = 0;
  readonly #log: Recorded[];

  constructor(log: Recorded[]) {
    this.#log = log;
  }

  activeTurn() {
    return this.active;
  }

  reserveSyntheticTurn(): string {
    const turnId = `synthetic-${++this.#synthetics}`;
    this.active = { turnId, synthetic: true };
    this.#log.push(['turn_started', { turnId, synthetic: true }]);
    return turnId;
  }

  completeTurn(turnId: string, stopReason: ContinuationStopReason, syntheticTimeout?: true): void {
    if (this.active?.turnId === turnId) this.active = undefined;
    this.#log.push(['turn_completed', { turnId, stopReason, ...(syntheticTimeout ? { syntheticTimeout } : {}) }]);
  }

  async interrupt(): Promise<void> {
    this.#log.push(['interrupt']);
    if (this.interruptFailure) throw this.interruptFailure;
  }

  /** What the runtime does for a user Turn: it becomes active, then settles on its own result. */
  startUserTurn(turnId: string): void {
    this.active = { turnId, synthetic: false };
  }

  settleActive(): void {
    this.#log.push(['turn_completed', { turnId: this.active?.turnId, stopReason: 'end_turn' }]);
    this.active = undefined;
  }
}

function setup(options: Partial<BackgroundTaskLifecycleOptions> = {}) {
  const log: Recorded[] = [];
  const emit: EmitEvent = (type, payload) => log.push([type, payload]);
  const turns = new FakeTurns(log);
  const timers = new ManualTimers();
  const lifecycle = new BackgroundTaskLifecycle({ emit, turns, timers, ...options });
  /** Drains the log, so each step of a scenario asserts exactly what it caused. */
  const take = (): Recorded[] => log.splice(0);
  return { lifecycle, turns, timers, take };
}

const sdk = (fields: Record<string, unknown>): SDKMessage => fields as unknown as SDKMessage;
const system = (subtype: string, fields: Record<string, unknown> = {}) => sdk({ type: 'system', subtype, ...fields });
const level = (...tasks: Array<[taskId: string, taskType: string]>) =>
  system('background_tasks_changed', {
    tasks: tasks.map(([task_id, task_type]) => ({ task_id, task_type, description: 'secret work' })),
  });
const taskStarted = (taskId: string, taskType: string) =>
  system('task_started', { task_id: taskId, task_type: taskType });
const taskUpdated = (taskId: string, status: string) => system('task_updated', { task_id: taskId, patch: { status } });
const taskNotification = (taskId: string, status = 'completed') =>
  system('task_notification', { task_id: taskId, status });
const idle = () => system('session_state_changed', { state: 'idle' });
const rootAssistant = () => sdk({ type: 'assistant', parent_tool_use_id: null, message: { content: [] } });
const rootStream = () => sdk({ type: 'stream_event', parent_tool_use_id: null, event: { type: 'message_start' } });

const SUCCESS = { succeeded: true, taskNotification: false };
const FOLLOW_UP = { succeeded: true, taskNotification: true };
const FAILURE = { succeeded: false, taskNotification: false };

function counts(turnId: string, overrides: Record<string, number> = {}) {
  return {
    turnId,
    runningCount: 0,
    backgroundTasksObservedCount: 0,
    backgroundTasksRunningCount: 0,
    backgroundTasksNoLongerLiveCount: 0,
    delegatedTasksKnownCount: 0,
    delegatedTasksRunningCount: 0,
    delegatedTasksCompletedCount: 0,
    delegatedTasksFailedCount: 0,
    delegatedTasksStoppedCount: 0,
    ...overrides,
  };
}

describe('BackgroundTaskLifecycle: level signal', () => {
  it('reports each full replace-set with aggregate counts and no descriptions', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(taskStarted('agent-1', 'local_agent'));
    lifecycle.observe(level(['bash-1', 'local_bash'], ['agent-1', 'local_agent']));
    lifecycle.observe(taskUpdated('bash-1', 'completed'));
    lifecycle.observe(level(['agent-1', 'local_agent']));
    assert.deepEqual(take(), [
      [
        'background_tasks_changed',
        counts('turn-1', {
          runningCount: 2,
          backgroundTasksObservedCount: 2,
          backgroundTasksRunningCount: 2,
          delegatedTasksKnownCount: 1,
          delegatedTasksRunningCount: 1,
        }),
      ],
      [
        'background_tasks_changed',
        counts('turn-1', {
          runningCount: 1,
          backgroundTasksObservedCount: 2,
          backgroundTasksRunningCount: 1,
          backgroundTasksNoLongerLiveCount: 1,
          delegatedTasksKnownCount: 1,
          delegatedTasksRunningCount: 1,
        }),
      ],
    ]);
  });

  it('counts delegated tasks by terminal status and tasks that left the set without a terminal edge', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(taskStarted('a', 'local_agent'));
    lifecycle.observe(taskStarted('b', 'local_agent'));
    lifecycle.observe(taskStarted('c', 'local_agent'));
    lifecycle.observe(level(['a', 'local_agent'], ['b', 'local_agent'], ['c', 'local_agent'], ['sh', 'local_bash']));
    lifecycle.observe(taskUpdated('a', 'failed'));
    lifecycle.observe(taskUpdated('b', 'killed'));
    lifecycle.observe(taskNotification('c', 'completed'));
    take();
    lifecycle.observe(level());
    assert.deepEqual(take(), [
      [
        'background_tasks_changed',
        counts('turn-1', {
          backgroundTasksObservedCount: 4,
          backgroundTasksRunningCount: 1,
          backgroundTasksNoLongerLiveCount: 4,
          delegatedTasksKnownCount: 3,
          delegatedTasksCompletedCount: 1,
          delegatedTasksFailedCount: 1,
          delegatedTasksStoppedCount: 1,
        }),
      ],
    ]);
  });

  it('emits background_tasks_quiesced once the set stayed empty for the grace', () => {
    const { lifecycle, turns, timers, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.observe(level());
    take();
    timers.advance(249);
    assert.deepEqual(take(), []);
    timers.advance(1);
    assert.deepEqual(take(), [
      [
        'background_tasks_quiesced',
        counts('turn-1', {
          backgroundTasksObservedCount: 1,
          backgroundTasksRunningCount: 1,
          backgroundTasksNoLongerLiveCount: 1,
        }),
      ],
    ]);
  });

  it('does not quiesce when a task starts within the grace, nor for an empty set never seen non-empty', () => {
    const { lifecycle, turns, timers, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(level());
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.observe(level());
    lifecycle.observe(level(['sh2', 'local_bash']));
    take();
    timers.advance(1_000);
    assert.deepEqual(take(), []);
    assert.equal(timers.pending, 0);
  });
});

/** turn-1 launches the background Bash task `sh` and settles with its own result. */
function launchAndSettle(lifecycle: BackgroundTaskLifecycle, turns: FakeTurns): void {
  turns.startUserTurn('turn-1');
  lifecycle.observe(level(['sh', 'local_bash']));
  lifecycle.observe(taskStarted('sh', 'local_bash'));
  assert.equal(lifecycle.onRootResult(SUCCESS), 'settle');
  turns.settleActive();
}

describe('BackgroundTaskLifecycle: continuations', () => {
  it('reserves one synthetic turn for a follow-up signalled after the root settled and ends it at idle', () => {
    const { lifecycle, turns, timers, take } = setup();
    // The observed background Bash sequence (claude-code-offline §5).
    launchAndSettle(lifecycle, turns);
    lifecycle.observe(idle());
    take();

    lifecycle.observe(taskUpdated('sh', 'completed'));
    lifecycle.observe(taskNotification('sh'));
    assert.deepEqual(take(), [['turn_started', { turnId: 'synthetic-1', synthetic: true }]]);
    lifecycle.observe(level());
    lifecycle.observe(rootStream());
    lifecycle.observe(rootAssistant());
    assert.equal(lifecycle.onRootResult(FOLLOW_UP), 'confirm');
    lifecycle.observe(idle());
    assert.deepEqual(take(), [
      [
        'background_tasks_changed',
        counts('synthetic-1', { backgroundTasksObservedCount: 1, backgroundTasksNoLongerLiveCount: 1 }),
      ],
      ['turn_completed', { turnId: 'synthetic-1', stopReason: 'background_agent_idle' }],
    ]);
    timers.advance(60_000);
    assert.deepEqual(take(), [
      [
        'background_tasks_quiesced',
        counts('synthetic-1', { backgroundTasksObservedCount: 1, backgroundTasksNoLongerLiveCount: 1 }),
      ],
    ]);
    assert.equal(lifecycle.hasBackgroundWork(), false);
  });

  it('retains the root turn when the continuation was pending before its result (the race), ending it at idle', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.observe(taskUpdated('sh', 'completed'));
    lifecycle.observe(taskNotification('sh'));
    lifecycle.observe(level());
    take();
    assert.equal(lifecycle.onRootResult(SUCCESS), 'retain');
    assert.equal(lifecycle.hasBackgroundWork(), true);
    lifecycle.observe(rootAssistant());
    assert.equal(lifecycle.onRootResult(FOLLOW_UP), 'confirm');
    assert.deepEqual(take(), []);
    lifecycle.observe(idle());
    assert.deepEqual(take(), [['turn_completed', { turnId: 'turn-1', stopReason: 'background_agent_idle' }]]);
    lifecycle.observe(idle());
    assert.deepEqual(take(), []);
  });

  it("never retains a later user turn for an earlier turn's background work: the follow-up runs after it", () => {
    const { lifecycle, turns, timers, take } = setup();
    launchAndSettle(lifecycle, turns);
    lifecycle.onRootSettled();
    lifecycle.observe(idle());
    // The next user turn starts before the job ends; the job's notification arrives while it runs.
    turns.startUserTurn('turn-2');
    lifecycle.onUserTurnActivated();
    lifecycle.observe(taskUpdated('sh', 'completed'));
    lifecycle.observe(taskNotification('sh'));
    lifecycle.observe(level());
    take();
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle', 'turn-2 ends with its own result');
    turns.settleActive();
    lifecycle.onRootSettled();
    assert.deepEqual(take(), [
      ['turn_completed', { turnId: 'turn-2', stopReason: 'end_turn' }],
      ['turn_started', { turnId: 'synthetic-1', synthetic: true }],
    ]);
    lifecycle.observe(rootAssistant());
    assert.equal(lifecycle.onRootResult(FOLLOW_UP), 'confirm');
    lifecycle.observe(idle());
    assert.deepEqual(take(), [['turn_completed', { turnId: 'synthetic-1', stopReason: 'background_agent_idle' }]]);
    timers.advance(60_000);
    assert.deepEqual(
      take().filter(([type]) => type !== 'background_tasks_quiesced'),
      [],
      'the started continuation has no deadline left',
    );
  });

  it('with nothing owed, settling a root result reserves nothing', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle');
    turns.settleActive();
    take();
    lifecycle.onRootSettled();
    assert.deepEqual(take(), []);
  });

  it('opens a continuation when the set empties while a delegated task has no terminal edge yet', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(taskStarted('agent-1', 'local_agent'));
    lifecycle.observe(level(['agent-1', 'local_agent']));
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle');
    turns.settleActive();
    take();
    lifecycle.observe(level());
    assert.deepEqual(take(), [
      [
        'background_tasks_changed',
        counts('turn-1', {
          backgroundTasksObservedCount: 1,
          backgroundTasksRunningCount: 1,
          backgroundTasksNoLongerLiveCount: 1,
          delegatedTasksKnownCount: 1,
          delegatedTasksRunningCount: 1,
        }),
      ],
      ['turn_started', { turnId: 'synthetic-1', synthetic: true }],
    ]);
  });

  it('does not open a continuation for an emptied set with no delegated task running and no notification', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.onRootResult(SUCCESS);
    turns.settleActive();
    take();
    lifecycle.observe(level());
    assert.deepEqual(
      take().map(([type]) => type),
      ['background_tasks_changed'],
    );
    assert.equal(lifecycle.hasBackgroundWork(), false);
  });

  it('never opens a continuation for a stopped task', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.onRootResult(SUCCESS);
    turns.settleActive();
    lifecycle.observe(taskNotification('sh', 'stopped'));
    assert.deepEqual(take(), [['turn_completed', { turnId: 'turn-1', stopReason: 'end_turn' }]]);
  });

  it('takes the notification from a root user message or a queued_command attachment too', () => {
    for (const notice of [
      sdk({
        type: 'user',
        parent_tool_use_id: null,
        message: { role: 'user', content: '<task-notification>\n<task-id>sh</task-id>\n<status>completed</status>' },
      }),
      sdk({
        type: 'attachment',
        attachment: { type: 'queued_command', commandMode: 'task-notification', prompt: '<task-notification>' },
      }),
    ]) {
      const { lifecycle, take } = setup();
      lifecycle.observe(notice);
      assert.deepEqual(take(), [['turn_started', { turnId: 'synthetic-1', synthetic: true }]]);
    }
  });

  it('never settles or times on follow-up results', () => {
    const { lifecycle, turns, timers, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(taskStarted('sh', 'local_bash'));
    lifecycle.observe(taskNotification('sh'));
    assert.equal(lifecycle.onRootResult(SUCCESS), 'retain');
    for (let i = 0; i < 3; i++) assert.equal(lifecycle.onRootResult(FOLLOW_UP), 'confirm');
    timers.advance(120_000);
    assert.deepEqual(take(), []);
    assert.equal(timers.pending, 0);
  });

  it('settles a synthetic turn on an ordinary result and forgets the continuation', () => {
    const { lifecycle, turns, take } = setup();
    lifecycle.observe(taskNotification('sh'));
    lifecycle.observe(rootAssistant());
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle');
    turns.settleActive();
    lifecycle.observe(idle());
    assert.deepEqual(take(), [
      ['turn_started', { turnId: 'synthetic-1', synthetic: true }],
      ['turn_completed', { turnId: 'synthetic-1', stopReason: 'end_turn' }],
    ]);
  });

  it('ends a synthetic turn the router opened for unowned output at idle', () => {
    const { lifecycle, turns, take } = setup();
    turns.active = { turnId: 'synthetic-router', synthetic: true };
    lifecycle.observe(idle());
    assert.deepEqual(take(), [['turn_completed', { turnId: 'synthetic-router', stopReason: 'background_agent_idle' }]]);
  });

  it('leaves an ordinary active turn alone at idle when nothing is pending', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(idle());
    assert.deepEqual(take(), []);
  });

  it('fences continuations after a failed root result', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(taskStarted('agent-1', 'local_agent'));
    lifecycle.observe(level(['agent-1', 'local_agent']));
    lifecycle.observe(taskNotification('other'));
    assert.equal(lifecycle.onRootResult(FAILURE), 'settle');
    turns.active = undefined;
    take();
    lifecycle.observe(level());
    lifecycle.observe(taskNotification('agent-1'));
    lifecycle.observe(idle());
    assert.deepEqual(
      take().map(([type]) => type),
      ['background_tasks_changed'],
    );
    assert.equal(lifecycle.onRootResult(FOLLOW_UP), 'confirm');
    assert.equal(lifecycle.hasBackgroundWork(), false);
  });
});

describe('BackgroundTaskLifecycle: captured Claude Code sequences', () => {
  for (const [fixture, launched] of [
    ['background-bash', { backgroundTasksObservedCount: 1, backgroundTasksNoLongerLiveCount: 1 }],
    [
      'delegated-agent',
      {
        backgroundTasksObservedCount: 1,
        backgroundTasksNoLongerLiveCount: 1,
        delegatedTasksKnownCount: 1,
        delegatedTasksCompletedCount: 1,
      },
    ],
  ] as const) {
    it(`${fixture}: the follow-up after the root settled gets one synthetic turn, ended at idle`, () => {
      const { lifecycle, turns, take } = setup();
      for (const entry of loadSdkFixture(fixture as SdkFixtureName)) {
        if (!('message' in entry)) continue;
        const message = entry.message;
        const record = message as unknown as Record<string, unknown>;
        if (message.type === 'user' && typeof (record.message as { content: unknown }).content === 'string') {
          turns.startUserTurn('turn-1');
        }
        if (message.type !== 'result') {
          lifecycle.observe(message);
          continue;
        }
        const origin = (record.origin as { kind?: string } | undefined)?.kind;
        const decision = lifecycle.onRootResult({ succeeded: true, taskNotification: origin === 'task-notification' });
        if (decision === 'settle') turns.settleActive();
        // The capture trims session_state_changed; Claude Code goes idle after each result here (§5).
        lifecycle.observe(idle());
      }
      const events = take();
      assert.deepEqual(
        events.map(([type, payload]) => [type, (payload as { turnId?: string } | undefined)?.turnId]),
        [
          ['background_tasks_changed', 'turn-1'],
          ['turn_completed', 'turn-1'],
          ['turn_started', 'synthetic-1'],
          ['background_tasks_changed', 'synthetic-1'],
          ['turn_completed', 'synthetic-1'],
        ],
      );
      assert.deepEqual(events[3]?.[1], counts('synthetic-1', launched));
      assert.deepEqual(events[4]?.[1], { turnId: 'synthetic-1', stopReason: 'background_agent_idle' });
    });
  }
});

describe('BackgroundTaskLifecycle: start timeout', () => {
  it('warns, completes the reservation, interrupts, and rejects the late output', async () => {
    const { lifecycle, turns, timers, take } = setup({ startTimeoutMs: 100 });
    lifecycle.observe(taskNotification('sh'));
    timers.advance(99);
    assert.deepEqual(take(), [['turn_started', { turnId: 'synthetic-1', synthetic: true }]]);
    timers.advance(1);
    assert.deepEqual(take(), [
      ['continuation_delayed', { turnId: 'synthetic-1', waitedMs: 100 }],
      [
        'turn_completed',
        { turnId: 'synthetic-1', stopReason: 'background_agent_continuation_timeout', syntheticTimeout: true },
      ],
      ['interrupt'],
    ]);
    assert.equal(turns.active, undefined);
    assert.equal(lifecycle.isRejectingTimedOutContinuation(), true);
    // No new reservation while the timed-out continuation's output is being rejected.
    lifecycle.observe(taskNotification('sh2'));
    lifecycle.observe(rootAssistant());
    assert.equal(lifecycle.rejectLateRootResult(), true);
    assert.equal(lifecycle.rejectLateRootResult(), false);
    assert.equal(lifecycle.isRejectingTimedOutContinuation(), false);
    await Promise.resolve();
    assert.deepEqual(take(), []);
  });

  it('defaults to 30 s and stays quiet once root output started', () => {
    const { lifecycle, timers, take } = setup();
    lifecycle.observe(taskNotification('sh'));
    timers.advance(29_999);
    lifecycle.observe(rootStream());
    timers.advance(60_000);
    assert.deepEqual(take(), [['turn_started', { turnId: 'synthetic-1', synthetic: true }]]);
    const late = setup();
    late.lifecycle.observe(taskNotification('sh'));
    late.timers.advance(30_000);
    assert.deepEqual(late.take()[1], ['continuation_delayed', { turnId: 'synthetic-1', waitedMs: 30_000 }]);
  });

  it('stays silent when the reserved turn already ended some other way', () => {
    const { lifecycle, turns, timers, take } = setup({ startTimeoutMs: 10 });
    lifecycle.observe(taskNotification('sh'));
    turns.active = undefined;
    timers.advance(10);
    assert.deepEqual(take(), [['turn_started', { turnId: 'synthetic-1', synthetic: true }]]);
    assert.equal(lifecycle.isRejectingTimedOutContinuation(), false);
    assert.equal(lifecycle.hasBackgroundWork(), false);
  });

  it('reports a failed interrupt as an uncorrelated error', async () => {
    const { lifecycle, turns, timers, take } = setup({ startTimeoutMs: 10 });
    turns.interruptFailure = new Error('transport gone');
    lifecycle.observe(taskNotification('sh'));
    timers.advance(10);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(take().slice(-2), [
      ['interrupt'],
      ['error', { error: 'Claude SDK continuation interrupt failed: transport gone' }],
    ]);
  });

  it('lifts the fence of a failed root result when the next user turn of the same Query activates', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(level(['agent-1', 'local_agent']));
    assert.equal(lifecycle.onRootResult(FAILURE), 'settle');
    turns.active = undefined;
    turns.startUserTurn('turn-2');
    lifecycle.onUserTurnActivated();
    take();
    lifecycle.observe(taskNotification('agent-1'));
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle', "turn-2 ends with its own result: it is turn-1's work");
    turns.settleActive();
    lifecycle.onRootSettled();
    lifecycle.observe(rootAssistant());
    lifecycle.observe(idle());
    assert.deepEqual(take(), [
      ['turn_completed', { turnId: 'turn-2', stopReason: 'end_turn' }],
      ['turn_started', { turnId: 'synthetic-1', synthetic: true }],
      ['turn_completed', { turnId: 'synthetic-1', stopReason: 'background_agent_idle' }],
    ]);
  });

  it('stops rejecting when a real user turn activates', () => {
    const { lifecycle, timers } = setup({ startTimeoutMs: 10 });
    lifecycle.observe(taskNotification('sh'));
    timers.advance(10);
    lifecycle.onUserTurnActivated();
    assert.equal(lifecycle.isRejectingTimedOutContinuation(), false);
    assert.equal(lifecycle.rejectLateRootResult(), false);
  });
});

/** The root launched a job and settled; its notification reserved `synthetic-1`; the log is drained. */
function reservedContinuation(lifecycle: BackgroundTaskLifecycle, turns: FakeTurns, take: () => Recorded[]): void {
  launchAndSettle(lifecycle, turns);
  lifecycle.onRootSettled();
  lifecycle.observe(idle());
  lifecycle.observe(taskUpdated('sh', 'completed'));
  lifecycle.observe(taskNotification('sh'));
  lifecycle.observe(level());
  assert.deepEqual(
    take().filter(([type]) => type === 'turn_started'),
    [['turn_started', { turnId: 'synthetic-1', synthetic: true }]],
  );
}

describe('BackgroundTaskLifecycle: a user prompt behind the follow-up', () => {
  // Measured with the real binary: a prompt sent while a follow-up is owed or running starts only after the
  // follow-up's own (task-notification) result, with no idle in between; its echo is the boundary.
  it('ends the continuation at the prompt, after the follow-up ran, with background_agent; nothing is owed after', () => {
    const { lifecycle, turns, timers, take } = setup();
    reservedContinuation(lifecycle, turns, take);
    lifecycle.observe(rootStream());
    lifecycle.observe(rootAssistant());
    assert.equal(lifecycle.onRootResult(FOLLOW_UP), 'confirm');
    assert.deepEqual(take(), [], 'the follow-up result alone ends nothing: more follow-up may come');

    lifecycle.onUserPromptStarted();
    assert.deepEqual(take(), [['turn_completed', { turnId: 'synthetic-1', stopReason: 'background_agent' }]]);
    turns.startUserTurn('turn-2');
    lifecycle.onUserTurnActivated();
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle', 'the user turn ends with its own result');
    turns.settleActive();
    lifecycle.onRootSettled();
    lifecycle.observe(idle());
    timers.advance(60_000);
    assert.deepEqual(
      take().filter(([type]) => type !== 'background_tasks_quiesced'),
      [['turn_completed', { turnId: 'turn-2', stopReason: 'end_turn' }]],
      'no continuation is reserved again and no deadline fires',
    );
    assert.equal(lifecycle.hasBackgroundWork(), false);
  });

  it('ends a reservation whose follow-up has not started, keeps the follow-up owed, and reserves it again after the user turn', () => {
    const { lifecycle, turns, timers, take } = setup();
    reservedContinuation(lifecycle, turns, take);
    lifecycle.onUserPromptStarted();
    assert.deepEqual(take(), [['turn_completed', { turnId: 'synthetic-1', stopReason: 'background_agent' }]]);
    assert.equal(lifecycle.hasBackgroundWork(), true, 'the follow-up is still owed');
    turns.startUserTurn('turn-2');
    lifecycle.onUserTurnActivated();
    timers.advance(60_000);
    assert.deepEqual(
      take().filter(([type]) => type !== 'background_tasks_quiesced'),
      [],
      "the ended reservation's deadline no longer fires",
    );
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle', "turn-2 is not retained for turn-1's work");
    turns.settleActive();
    lifecycle.onRootSettled();
    lifecycle.observe(rootAssistant());
    assert.equal(lifecycle.onRootResult(FOLLOW_UP), 'confirm');
    lifecycle.observe(idle());
    assert.deepEqual(take(), [
      ['turn_completed', { turnId: 'turn-2', stopReason: 'end_turn' }],
      ['turn_started', { turnId: 'synthetic-2', synthetic: true }],
      ['turn_completed', { turnId: 'synthetic-2', stopReason: 'background_agent_idle' }],
    ]);
  });

  it('ends the launching turn retained for its follow-up at the prompt, with background_agent, once', () => {
    const { lifecycle, turns, timers, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.observe(taskUpdated('sh', 'completed'));
    lifecycle.observe(taskNotification('sh'));
    lifecycle.observe(level());
    assert.equal(lifecycle.onRootResult(SUCCESS), 'retain');
    lifecycle.observe(rootAssistant());
    assert.equal(lifecycle.onRootResult(FOLLOW_UP), 'confirm');
    take();

    lifecycle.onUserPromptStarted();
    lifecycle.onUserPromptStarted();
    assert.deepEqual(take(), [['turn_completed', { turnId: 'turn-1', stopReason: 'background_agent' }]]);
    turns.startUserTurn('turn-2');
    lifecycle.onUserTurnActivated();
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle');
    turns.settleActive();
    lifecycle.onRootSettled();
    lifecycle.observe(idle());
    timers.advance(60_000);
    assert.deepEqual(
      take().filter(([type]) => type !== 'background_tasks_quiesced'),
      [['turn_completed', { turnId: 'turn-2', stopReason: 'end_turn' }]],
    );
  });

  it('ends a retained turn whose follow-up has not run at the prompt, and reserves the follow-up after the user turn', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.observe(taskNotification('sh'));
    lifecycle.observe(level());
    assert.equal(lifecycle.onRootResult(SUCCESS), 'retain');
    take();
    lifecycle.onUserPromptStarted();
    assert.deepEqual(take(), [['turn_completed', { turnId: 'turn-1', stopReason: 'background_agent' }]]);
    turns.startUserTurn('turn-2');
    lifecycle.onUserTurnActivated();
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle');
    turns.settleActive();
    lifecycle.onRootSettled();
    assert.deepEqual(take(), [
      ['turn_completed', { turnId: 'turn-2', stopReason: 'end_turn' }],
      ['turn_started', { turnId: 'synthetic-1', synthetic: true }],
    ]);
  });

  it('a follow-up kept owed that Claude Code answered with the prompt ends its reservation at the idle after it', () => {
    const { lifecycle, turns, timers, take } = setup();
    reservedContinuation(lifecycle, turns, take);
    lifecycle.onUserPromptStarted();
    turns.startUserTurn('turn-2');
    lifecycle.onUserTurnActivated();
    assert.equal(lifecycle.onRootResult(SUCCESS), 'settle');
    turns.settleActive();
    lifecycle.onRootSettled();
    lifecycle.observe(idle());
    timers.advance(60_000);
    assert.deepEqual(
      take().filter(([type]) => type !== 'background_tasks_quiesced'),
      [
        ['turn_completed', { turnId: 'synthetic-1', stopReason: 'background_agent' }],
        ['turn_completed', { turnId: 'turn-2', stopReason: 'end_turn' }],
        ['turn_started', { turnId: 'synthetic-2', synthetic: true }],
        ['turn_completed', { turnId: 'synthetic-2', stopReason: 'background_agent_idle' }],
      ],
      'no deadline, no interrupt: the idle right after the user turn ends the reservation',
    );
    assert.equal(lifecycle.hasBackgroundWork(), false);
  });

  it('leaves an ordinary active turn alone when a prompt starts', () => {
    const { lifecycle, turns, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.onUserPromptStarted();
    assert.deepEqual(take(), []);
    // A turn that was retained once and ended at idle is not retained any more.
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.observe(taskNotification('sh'));
    lifecycle.observe(level());
    assert.equal(lifecycle.onRootResult(SUCCESS), 'retain');
    lifecycle.observe(idle());
    take();
    turns.startUserTurn('turn-1');
    lifecycle.onUserPromptStarted();
    assert.deepEqual(take(), []);
  });

  it("never makes the output before the prompt nobody's: no rejection is armed", () => {
    const { lifecycle, turns, take } = setup();
    reservedContinuation(lifecycle, turns, take);
    lifecycle.observe(rootAssistant());
    lifecycle.onUserPromptStarted();
    assert.equal(lifecycle.isRejectingTimedOutContinuation(), false);
    assert.equal(lifecycle.rejectLateRootResult(), false);
  });
});

describe('BackgroundTaskLifecycle: cancel, reset', () => {
  it('cancel clears the quiescence timer and the continuation and fences later signals', () => {
    const { lifecycle, turns, timers, take } = setup();
    turns.startUserTurn('turn-1');
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.observe(taskNotification('sh'));
    lifecycle.observe(level());
    lifecycle.onCancel();
    turns.active = undefined;
    take();
    timers.advance(1_000);
    lifecycle.observe(taskNotification('sh2'));
    lifecycle.observe(idle());
    assert.deepEqual(take(), []);
    assert.equal(timers.pending, 0);
  });

  it('reset starts a new generation from scratch', () => {
    const { lifecycle, turns, timers, take } = setup({ startTimeoutMs: 10 });
    turns.startUserTurn('turn-1');
    lifecycle.observe(level(['sh', 'local_bash']));
    lifecycle.onRootResult(FAILURE);
    turns.active = undefined;
    lifecycle.reset();
    take();
    lifecycle.observe(level());
    timers.advance(1_000);
    assert.deepEqual(take(), [['background_tasks_changed', counts('turn-1')]]);
    lifecycle.observe(taskNotification('sh'));
    assert.deepEqual(take(), [['turn_started', { turnId: 'synthetic-1', synthetic: true }]]);
    lifecycle.reset();
    timers.advance(1_000);
    assert.deepEqual(take(), []);
    assert.equal(lifecycle.isRejectingTimedOutContinuation(), false);
  });
});
