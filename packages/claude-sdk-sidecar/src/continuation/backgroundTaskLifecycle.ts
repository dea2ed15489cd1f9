import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { EmitEvent, TurnStopReason } from '@outrigger/protocol';
import { isRootMessage } from '../shared/sdkMessages.ts';
import { asRecord, type JsonRecord, nonEmptyString, terminalTaskStatus } from '../shared/sdkValues.ts';
import { BackgroundTaskLedger, type LiveBackgroundTask } from './backgroundTaskLedger.ts';
import { readTaskNotification } from './taskNotification.ts';
import { type CancelTimer, type ContinuationTimers, nodeTimers } from './timers.ts';

export type ContinuationStopReason = Exclude<TurnStopReason, 'end_turn'>;

/** What the lifecycle needs from the session's Turn queue; the runtime adapts its TurnLifecycle to it. */
export interface ContinuationTurns {
  /** The Turn root output goes to now. */
  activeTurn(): { readonly turnId: string; readonly synthetic: boolean } | undefined;
  /** Opens a sidecar-made Turn for background follow-up output, emits `turn_started {synthetic:true}`, returns its id. */
  reserveSyntheticTurn(): string;
  /** Ends this Turn with `turn_completed`; a no-op when it already ended. */
  completeTurn(turnId: string, stopReason: ContinuationStopReason, syntheticTimeout?: true): void;
  /** Interrupts the current Query's work without retiring the Query. */
  interrupt(): Promise<void>;
}

export interface RootResult {
  /** Not canceled, subtype success, not is_error and no assistant error. */
  readonly succeeded: boolean;
  /** The result's `origin.kind` is `task-notification`: background follow-up output, not a Turn's end. */
  readonly taskNotification: boolean;
}

/**
 * What to do with a root result: `settle` the Turn as usual; `retain` it (no terminal: a background
 * continuation is pending and session idle will end the Turn); `confirm` follow-up output (no terminal).
 */
export type RootResultDecision = 'settle' | 'retain' | 'confirm';

export interface BackgroundTaskLifecycleOptions {
  emit: EmitEvent;
  turns: ContinuationTurns;
  /** How long a reserved continuation may wait for its first root output. */
  startTimeoutMs?: number;
  /** How long the live set must stay empty before `background_tasks_quiesced`. */
  quiescenceMs?: number;
  timers?: ContinuationTimers;
}

export const DEFAULT_CONTINUATION_START_TIMEOUT_MS = 30_000;
const BACKGROUND_QUIESCENCE_MS = 250;

interface AwaitedContinuation {
  readonly turnId: string;
  readonly reservedAt: number;
  readonly cancelTimer: CancelTimer;
}

/**
 * Background tasks and the model output they cause after a Turn's own work (reference §3.5, protocol 6).
 * Claude Code reports its live background tasks as a replace-set and, when one ends, runs a follow-up on
 * its own. That follow-up belongs to the Turn that launched the work when it is still open (the Turn is
 * retained until the session goes idle), or else to one synthetic Turn reserved for it: a later user Turn
 * is never retained for it. A user prompt sent meanwhile waits in Claude Code behind the follow-up, so
 * the Turn holding the follow-up ends when that prompt starts, not when it is sent. Every Turn it touches
 * ends once.
 */
export class BackgroundTaskLifecycle {
  readonly #emit: EmitEvent;
  readonly #turns: ContinuationTurns;
  readonly #startTimeoutMs: number;
  readonly #quiescenceMs: number;
  readonly #timers: ContinuationTimers;
  #ledger = new BackgroundTaskLedger();
  #lastTurnId: string | undefined;
  /** The live set went empty while a delegated task still had no terminal edge. */
  #levelPending = false;
  /** A task notification promises a follow-up. */
  #notificationPending = false;
  /** The Turns whose background work the pending follow-up is (the Turn running when each task was launched). */
  readonly #pendingOwners = new Set<string>();
  /** The root Turn kept open for its follow-up (`retain`), until it ends. */
  #retainedTurnId: string | undefined;
  /** A follow-up result came since the root Turn was retained: its follow-up ran on it. */
  #retainedFollowUpRan = false;
  /** Undefined until the Query's first root result; false fences later signals from opening a continuation. */
  #rootSucceeded: boolean | undefined;
  #awaited: AwaitedContinuation | undefined;
  #cancelQuiescence: CancelTimer | undefined;
  /** A continuation timed out: its late output must not open or feed a Turn. */
  #rejecting = false;
  /** Bumped on reset, so callbacks of an earlier Query generation do nothing. */
  #epoch = 0;

  constructor(options: BackgroundTaskLifecycleOptions) {
    this.#emit = options.emit;
    this.#turns = options.turns;
    this.#startTimeoutMs = options.startTimeoutMs ?? DEFAULT_CONTINUATION_START_TIMEOUT_MS;
    this.#quiescenceMs = options.quiescenceMs ?? BACKGROUND_QUIESCENCE_MS;
    this.#timers = options.timers ?? nodeTimers;
  }

  /** Every SDK message of the current generation, before it is projected (root results go to `onRootResult`). */
  observe(message: SDKMessage): void {
    const active = this.#turns.activeTurn();
    if (active) this.#lastTurnId = active.turnId;
    if (message.type === 'system') {
      this.#observeSystem(message as unknown as JsonRecord);
    } else if ((message.type === 'assistant' || message.type === 'stream_event') && isRootMessage(message)) {
      this.#confirmStart();
      return;
    }
    // Every form of a task's completion notice, the system `task_notification` message included.
    const notification = readTaskNotification(message);
    if (notification) this.#onNotification(notification.taskId, notification.status);
  }

  /** A root result of the Turn the router is about to settle. */
  onRootResult(result: RootResult): RootResultDecision {
    const active = this.#turns.activeTurn();
    if (active) this.#lastTurnId = active.turnId;
    if (result.succeeded && result.taskNotification) {
      // Several notifications may share one result, so it proves output, not the end of the follow-up.
      this.#confirmStart();
      if (this.#rootSucceeded !== false) this.#notificationPending = true;
      this.#retainedFollowUpRan = true;
      return 'confirm';
    }
    this.#rootSucceeded = result.succeeded;
    if (!result.succeeded || active?.synthetic) {
      this.#clearContinuation();
      return 'settle';
    }
    // Only the Turn that launched the background work waits for its follow-up. Any later Turn ends with its
    // own result; the follow-up then gets a continuation Turn of its own (`onRootSettled`).
    if (this.#continuationPending() && active !== undefined && this.#pendingOwners.has(active.turnId)) {
      this.#retainedTurnId = active.turnId;
      this.#retainedFollowUpRan = false;
      return 'retain';
    }
    return 'settle';
  }

  /** A root result settled its Turn: a follow-up still owed by earlier background work gets its own Turn now. */
  onRootSettled(): void {
    this.#reserveContinuation();
  }

  /**
   * Called first for every root result: true when it is the owed result of a timed-out continuation,
   * which the caller drops unseen. Using up the owed result ends the rejection.
   */
  rejectLateRootResult(): boolean {
    if (!this.#rejecting) return false;
    this.#rejecting = false;
    return true;
  }

  /**
   * While true (a continuation timed out), output that is not a user prompt echo must not activate a Turn
   * or open a synthetic one.
   */
  isRejectingTimedOutContinuation(): boolean {
    return this.#rejecting;
  }

  /**
   * A real user prompt echo activated its Turn: whatever the timed-out continuation left is over, and the
   * Query (kept across turns) starts a new root run that an earlier failed result no longer fences.
   */
  onUserTurnActivated(): void {
    this.#rejecting = false;
    this.#rootSucceeded = undefined;
  }

  /**
   * Claude Code started a user's prompt (its echo arrived): the Turn holding background follow-up output
   * (a synthetic continuation, or the launching Turn retained for it) ends now with `background_agent`.
   * Measured with the real binary: a prompt sent while a follow-up is owed or running waits in Claude
   * Code's queue behind the job's notification, so the follow-up runs to its own result first and the
   * prompt's echo comes after it, with no idle in between; everything before the echo is the follow-up's.
   * A follow-up that has not run yet (a reserved continuation without output, a retained Turn without a
   * follow-up result) stays owed: it runs after this prompt, on a continuation reserved when the user's Turn
   * settles (or, if Claude Code answers it with the prompt, that reservation ends at the idle after it).
   */
  onUserPromptStarted(): void {
    const active = this.#turns.activeTurn();
    const retained = active !== undefined && active.turnId === this.#retainedTurnId;
    if (!active || !(active.synthetic || retained)) return;
    const followUpOwed = retained ? !this.#retainedFollowUpRan : this.#awaited?.turnId === active.turnId;
    if (followUpOwed) {
      this.#confirmStart();
      this.#retainedTurnId = undefined;
    } else {
      this.#clearContinuation();
    }
    this.#turns.completeTurn(active.turnId, 'background_agent');
  }

  /**
   * The Turn a permission request or question of background work goes to: the open one, or else a
   * synthetic Turn opened for it (reference §3.6, last step). The follow-up is already running, so it has
   * no start deadline; session idle or its own root result ends it like any continuation.
   */
  turnForRequest(): string {
    const active = this.#turns.activeTurn();
    if (active) return active.turnId;
    const turnId = this.#turns.reserveSyntheticTurn();
    this.#lastTurnId = turnId;
    return turnId;
  }

  /** True while a reserved continuation waits for its first root output. */
  get awaitingContinuation(): boolean {
    return this.#awaited !== undefined;
  }

  /** A cancel retires the Query: no continuation may follow from what it left behind. */
  onCancel(): void {
    this.#stopQuiescence();
    this.#clearContinuation();
    this.#rootSucceeded = false;
  }

  /** True while background tasks run or a follow-up is owed: retiring the Query now would lose them. */
  hasBackgroundWork(): boolean {
    return this.#ledger.liveCount > 0 || this.#continuationPending() || this.#awaited !== undefined;
  }

  /**
   * The running task a `stop_task` means: the task id itself, else the task its tool call launched.
   * Undefined when neither names a task that still runs (Claude Code acknowledges any id, so asking it
   * proves nothing).
   */
  runningTask(taskId: string, toolCallId: string): string | undefined {
    const candidate = taskId || (toolCallId ? this.#ledger.taskOfToolCall(toolCallId) : undefined);
    return candidate && this.#ledger.isRunning(candidate) ? candidate : undefined;
  }

  /** A new Query generation (or session close): nothing carries over. */
  reset(): void {
    this.#epoch++;
    this.#stopQuiescence();
    this.#clearContinuation();
    this.#ledger = new BackgroundTaskLedger();
    this.#rootSucceeded = undefined;
    this.#rejecting = false;
  }

  #observeSystem(message: JsonRecord): void {
    switch (message.subtype) {
      case 'background_tasks_changed':
        this.#onLevel(liveTasks(message.tasks));
        return;
      case 'task_started': {
        const taskId = nonEmptyString(message.task_id);
        if (taskId) {
          const owner = this.#turns.activeTurn()?.turnId;
          this.#ledger.started(taskId, nonEmptyString(message.task_type), nonEmptyString(message.tool_use_id), owner);
        }
        return;
      }
      case 'task_updated': {
        const taskId = nonEmptyString(message.task_id);
        const status = nonEmptyString(asRecord(message.patch)?.status);
        if (taskId && terminalTaskStatus(status) && this.#ledger.ended(taskId, status)) {
          this.#noteOwners([taskId]);
          this.#reserveContinuation();
        }
        return;
      }
      case 'session_state_changed':
        if (message.state === 'idle') this.#onSessionIdle();
        return;
    }
  }

  #onLevel(tasks: LiveBackgroundTask[]): void {
    const change = this.#ledger.replaceLevel(tasks, this.#turns.activeTurn()?.turnId);
    this.#emitCounts('background_tasks_changed');
    if (tasks.length > 0) {
      this.#stopQuiescence();
      this.#levelPending = false;
      return;
    }
    if (!change.wasObserved || change.previousCount === 0) return;
    this.#levelPending = this.#rootSucceeded !== false && this.#ledger.delegatedRunningCount > 0;
    if (this.#levelPending) this.#noteOwners(change.left);
    this.#stopQuiescence();
    const epoch = this.#epoch;
    this.#cancelQuiescence = this.#timers.schedule(() => {
      this.#cancelQuiescence = undefined;
      if (epoch === this.#epoch && this.#ledger.liveCount === 0) this.#emitCounts('background_tasks_quiesced');
    }, this.#quiescenceMs);
    this.#reserveContinuation();
  }

  #onNotification(taskId: string | undefined, status: string | undefined): void {
    if (taskId) this.#ledger.ended(taskId, status);
    // A stopped task was ended on request; Claude Code owes no follow-up for it.
    if (status !== 'stopped' && this.#rootSucceeded !== false) {
      this.#notificationPending = true;
      if (taskId) this.#noteOwners([taskId]);
    }
    this.#reserveContinuation();
  }

  #noteOwners(taskIds: readonly string[]): void {
    for (const taskId of taskIds) {
      const owner = this.#ledger.ownerOf(taskId);
      if (owner !== undefined) this.#pendingOwners.add(owner);
    }
  }

  /** The SDK's authoritative end of background work: its loop drained and the session is idle. */
  #onSessionIdle(): void {
    const active = this.#turns.activeTurn();
    const pending = this.#clearContinuation();
    if (active && (pending || active.synthetic)) this.#turns.completeTurn(active.turnId, 'background_agent_idle');
  }

  /** A follow-up is owed and no Turn is open to receive it: reserve one, and give it a deadline to start. */
  #reserveContinuation(): void {
    if (this.#rootSucceeded === false || this.#rejecting || !this.#continuationPending()) return;
    if (this.#turns.activeTurn()) return;
    const turnId = this.#turns.reserveSyntheticTurn();
    this.#lastTurnId = turnId;
    const epoch = this.#epoch;
    this.#awaited = {
      turnId,
      reservedAt: this.#timers.now(),
      cancelTimer: this.#timers.schedule(() => {
        if (epoch === this.#epoch) this.#onStartTimeout(turnId);
      }, this.#startTimeoutMs),
    };
  }

  #onStartTimeout(turnId: string): void {
    const awaited = this.#awaited;
    if (awaited?.turnId !== turnId) return;
    if (this.#turns.activeTurn()?.turnId !== turnId) {
      // The reservation already ended some other way (its Query ended, say): nothing is waiting any more.
      this.#clearContinuation();
      return;
    }
    this.#emit('continuation_delayed', { turnId, waitedMs: Math.round(this.#timers.now() - awaited.reservedAt) });
    this.#clearContinuation();
    this.#turns.completeTurn(turnId, 'background_agent_continuation_timeout', true);
    this.#rejecting = true;
    const epoch = this.#epoch;
    this.#turns.interrupt().catch((error: unknown) => {
      if (epoch !== this.#epoch) return;
      const reason = error instanceof Error ? error.message : String(error);
      this.#emit('error', { error: `Claude SDK continuation interrupt failed: ${reason}` });
    });
  }

  /** The first root output of a reserved continuation: it started, the deadline no longer applies. */
  #confirmStart(): void {
    this.#awaited?.cancelTimer();
    this.#awaited = undefined;
  }

  #stopQuiescence(): void {
    this.#cancelQuiescence?.();
    this.#cancelQuiescence = undefined;
  }

  #continuationPending(): boolean {
    return this.#levelPending || this.#notificationPending;
  }

  /** Forgets any pending or awaited continuation; true when there was one. */
  #clearContinuation(): boolean {
    const had = this.#continuationPending() || this.#awaited !== undefined;
    this.#levelPending = false;
    this.#notificationPending = false;
    this.#pendingOwners.clear();
    this.#retainedTurnId = undefined;
    this.#confirmStart();
    return had;
  }

  #emitCounts(type: 'background_tasks_changed' | 'background_tasks_quiesced'): void {
    const turnId = this.#turns.activeTurn()?.turnId ?? this.#lastTurnId ?? '';
    this.#emit(type, { turnId, ...this.#ledger.counts() });
  }
}

function liveTasks(value: unknown): LiveBackgroundTask[] {
  if (!Array.isArray(value)) return [];
  const tasks: LiveBackgroundTask[] = [];
  for (const entry of value) {
    const record = asRecord(entry);
    const taskId = nonEmptyString(record?.task_id);
    if (taskId) tasks.push({ taskId, taskType: nonEmptyString(record?.task_type) });
  }
  return tasks;
}
