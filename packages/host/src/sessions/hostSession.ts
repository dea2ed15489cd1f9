import type {
  AnswerInteractionBody,
  CancelTurnResponse,
  CreateTaskBody,
  Interaction,
  PatchSettingsBody,
  PatchTaskBody,
  PostTurnBody,
  PostTurnResponse,
  QueuedPrompt,
  ResumeQueueResponse,
  RunQueuedTurnResponse,
  Task,
} from '@outrigger/host-api';
import { type CancelResult, CLAUDE_CODE_EXITED_CODE, type SidecarEvent } from '@outrigger/protocol';
import type { SessionCheckpoints } from '../checkpoints/sessionCheckpoints.ts';
import { HostError } from '../hostError.ts';
import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import type { PromptInput, SessionCommand } from '../projection/sessionCommand.ts';
import { queuedPrompt } from '../projection/views.ts';
import {
  classifySidecarFailure,
  failureName,
  hostErrorOf,
  type SidecarFailure,
  turnErrorOf,
} from '../sidecar/sidecarFailure.ts';
import type { SidecarExitReport } from '../sidecar/sidecarSupervisor.ts';
import type { HostStoreReader } from '../store/hostStore.ts';
import type { SessionRecord, TurnRecord } from '../store/records.ts';
import { StoreError } from '../store/storeError.ts';
import type { CancelBudgets } from './cancelBudgets.ts';
import { answerInteraction } from './interactionAnswer.ts';
import { modelRejectionOf } from './modelRejection.ts';
import { SessionOutside, type TranscriptWatch } from './outsideChanges.ts';
import { decideEdit, decideRun, mustWait, nextQueued, pausesOnCancel } from './promptQueue.ts';
import { SerialQueue } from './serialQueue.ts';
import { SessionInSidecar, type SidecarPort } from './sessionInSidecar.ts';
import type { AppliedSidecarEvent, SessionLedger } from './sessionLedger.ts';
import { untilTheStoreTakes } from './storeRetry.ts';
import { ToolTimeouts } from './toolTimeouts.ts';
import { TurnCheckpointing } from './turnCheckpointing.ts';
import { draftTurn, promptBlocks } from './turnInput.ts';

export interface HostSessionDeps {
  readonly sidecar: SidecarPort;
  readonly store: Pick<HostStoreReader, 'getTurn' | 'getInteraction' | 'findClientMessage' | 'getAttachment'>;
  readonly logger: RuntimeLogger;
  readonly now: () => number;
  readonly newId: () => string;
  /** `--tool-timeout`: a tool running longer is reported and its turn canceled. Off when undefined. */
  readonly toolTimeoutMs?: number;
  /** Budgets of the cancel the host sends itself (a tool timeout, an identity violation). */
  readonly internalCancelBudgets?: CancelBudgets;
  /** How long an answer's acknowledgement may take before it counts as lost. Default 15 s. */
  readonly submitTimeoutMs?: number;
  /** Snapshots of the session's directory at each turn's start and end; none when undefined. */
  readonly checkpoints?: Pick<SessionCheckpoints, 'record'>;
  /** Sees the transcript grow outside Outrigger (`outsideChanges.ts`); not watched when undefined. */
  readonly transcript?: Pick<TranscriptWatch, 'turnEnded' | 'check'>;
}

const HOST_CANCEL_BUDGETS: CancelBudgets = { interruptTimeoutMs: 10_000, drainTimeoutMs: 8_000 };

/**
 * One session at run time: its commands and its sidecar events go through one serial queue, so they
 * apply in order and never block another session. It keeps the session started in the live sidecar
 * (`start`, with `restore` and the stored resume cursor once Claude has a transcript for it), runs
 * one user turn at a time (later prompts queue, or steer into it), cancels, answers interactions, and
 * ends its turns when the sidecar dies. Every durable change goes through the ledger.
 */
export class HostSession {
  readonly id: string;
  readonly queue = new SerialQueue();
  readonly #ledger: SessionLedger;
  readonly #deps: HostSessionDeps;
  readonly #toolTimeouts: ToolTimeouts | undefined;
  readonly #inSidecar: SessionInSidecar;
  /** The host is shutting down: a sidecar event the store refuses is no longer tried again. */
  #stopped = false;
  readonly #checkpointing: TurnCheckpointing;
  readonly #outside: SessionOutside | undefined;

  constructor(ledger: SessionLedger, deps: HostSessionDeps, startedOn?: number) {
    this.id = ledger.sessionId;
    this.#ledger = ledger;
    this.#deps = deps;
    this.#inSidecar = new SessionInSidecar(ledger.sessionId, deps, startedOn);
    this.#checkpointing = new TurnCheckpointing(ledger.sessionId, ledger, deps.checkpoints, deps.logger);
    this.#outside =
      deps.transcript &&
      new SessionOutside({
        watch: deps.transcript,
        ledger,
        restartClaudeCode: () => this.#closeInSidecar(),
        onQueue: (work) =>
          void this.queue.run(work).catch((error: unknown) => this.#logFailure('outside changes', error)),
        logger: deps.logger,
        logFailure: (error) => this.#logFailure('outside changes', error),
      });
    this.#toolTimeouts =
      deps.toolTimeoutMs === undefined
        ? undefined
        : new ToolTimeouts({
            limitMs: deps.toolTimeoutMs,
            onTimeout: (hit) => {
              void this.queue
                .run(async () => {
                  if (this.#ledger.turn(hit.turnId)?.status !== 'running') return false;
                  await this.#ledger.apply({
                    type: 'toolTimedOut',
                    turnId: hit.turnId,
                    toolUseId: hit.toolUseId,
                    toolName: hit.toolName,
                    elapsedSeconds: hit.elapsedSeconds,
                  });
                  return true;
                })
                .then((recorded) => (recorded ? this.#cancelInSidecar(hit.turnId, 'tool_timeout') : undefined))
                .catch((error: unknown) => this.#logFailure('tool_timeout', error));
            },
          });
  }

  get session(): SessionRecord {
    return this.#ledger.session;
  }

  // ─── commands ────────────────────────────────────────────────────────────────────────────────

  postTurn(body: PostTurnBody): Promise<PostTurnResponse> {
    return this.queue.run(async () => {
      this.#assertOpen();
      if (body.clientMessageId !== undefined) {
        const hit = await this.#deps.store.findClientMessage(this.id, body.clientMessageId);
        if (hit !== undefined) {
          const turn = this.#ledger.turn(hit.turnId) ?? (await this.#deps.store.getTurn(this.id, hit.turnId));
          return { turnId: hit.turnId, queued: turn?.status === 'queued', steered: hit.steer, replayed: true };
        }
      }
      const running = this.#ledger.runningUserTurn();
      if (body.mode === 'steer' && running !== undefined) return this.#steer(running, body);

      const turnId = this.#deps.newId();
      const draft = draftTurn(body, { sessionId: this.id, turnId, now: this.#deps.now(), newId: this.#deps.newId });
      if (mustWait(running, this.#ledger.queuedTurns())) {
        await this.#acceptTurn(turnId, draft, true);
        return { turnId, queued: true, steered: false, replayed: false };
      }
      // Nothing is stored until the sidecar has the session: a sidecar that cannot start is a 503, not a lost turn.
      const generation = await this.#startForTurn();
      await this.#acceptTurn(turnId, draft, false);
      await this.#outside?.place(turnId);
      await this.#checkpointing.turnStarts(turnId);
      await this.#exec(generation, turnId);
      await this.#dispatchNext();
      return { turnId, queued: false, steered: false, replayed: false };
    });
  }

  /**
   * Cancels a running turn in the sidecar, or removes a queued one (`pre_accept`). The answer waits
   * until every event the sidecar wrote before it is committed: a `provider_active` answer means the
   * turn's acceptance (its binding) is durable. The user's Stop of a running turn first pauses the
   * prompts queued behind it (`promptQueue.ts`), so its end starts none of them.
   */
  async cancelTurn(turnId: string, budgets: CancelBudgets): Promise<CancelTurnResponse> {
    const step = await this.queue.run(async (): Promise<CancelTurnResponse | { generation: number }> => {
      const turn = await this.#turn(turnId);
      if (turn === undefined) throw new HostError('not_found', 'no such turn in this session');
      if (turn.status === 'queued') {
        await this.#ledger.apply({ type: 'cancelQueuedTurn', turnId });
        return { turnId, canceled: true, disposition: 'pre_accept', providerTurnId: '' };
      }
      if (turn.status !== 'running') {
        return { turnId, canceled: false, disposition: 'absent', providerTurnId: turn.providerTurnId ?? '' };
      }
      if (pausesOnCancel(turn, this.#ledger.queuedTurns())) await this.#ledger.apply({ type: 'pauseQueue' });
      const generation = this.#inSidecar.liveGeneration();
      if (generation === undefined) {
        // Its sidecar is gone: the exit ends the turn (the exit report is on its way to this queue).
        return {
          turnId,
          canceled: false,
          disposition: 'provider_state_lost',
          providerTurnId: turn.providerTurnId ?? '',
        };
      }
      return { generation };
    });
    if (!('generation' in step)) return step;

    let answer: CancelResult | undefined;
    let failure: SidecarFailure | undefined;
    try {
      answer = await this.#inSidecar.requestCancel(step.generation, turnId, budgets, 'cancel');
    } catch (error) {
      failure = classifySidecarFailure(error);
    }
    return this.queue.run(async () => {
      // Everything the sidecar wrote before its answer is applied by now (it was queued ahead of this).
      const turn = await this.#turn(turnId);
      const providerTurnId = turn?.providerTurnId ?? '';
      if (answer !== undefined) {
        if (answer.disposition === 'provider_active' && answer.providerTurnId !== '' && turn?.providerTurnId === null) {
          this.#deps.logger.warn(
            { event: 'session.cancel_binding_missing', sessionId: this.id, turnId },
            'a provider_active cancel answered for a turn whose identity was not committed; binding it now',
          );
          await this.#ledger.apply({ type: 'bindTurn', turnId, providerTurnId: answer.providerTurnId });
        }
        return {
          turnId,
          canceled: answer.canceled,
          disposition: answer.disposition,
          providerTurnId: answer.providerTurnId,
        };
      }
      switch (failure?.kind) {
        case 'gone':
          return { turnId, canceled: false, disposition: 'provider_state_lost', providerTurnId };
        case 'refused':
          if (failure.stage !== 'consumption') {
            throw new HostError('conflict', `the sidecar refused the cancel: ${failure.message}`);
          }
          // The drain budget ran out: the sidecar keeps the turn unsettled. Closing the session ends it
          // (`turn_failed`); the next turn starts it again from its resume cursor.
          this.#deps.logger.warn(
            { event: 'session.cancel_drain_timeout', sessionId: this.id, turnId },
            'cancel did not drain in time; closing the session in the sidecar',
          );
          await this.#closeInSidecar();
          return { turnId, canceled: false, disposition: 'provider_state_lost', providerTurnId };
        default:
          throw new HostError('sidecar_unavailable', 'the sidecar did not answer the cancel in time');
      }
    });
  }

  /** Run now: a queued (or paused) prompt starts at once while no user turn runs; its retry starts nothing. */
  runQueuedTurn(turnId: string): Promise<RunQueuedTurnResponse> {
    return this.queue.run(async () => {
      this.#assertOpen();
      const decision = decideRun(await this.#turn(turnId), this.#ledger.runningUserTurn());
      if (decision.kind === 'missing') throw new HostError('not_found', 'no such turn in this session');
      if (decision.kind === 'conflict') throw new HostError('conflict', decision.message);
      if (decision.kind === 'running') return { turnId, started: false };
      // The sidecar first: one that cannot start is a 503 and the prompt stays queued as it was.
      const generation = await this.#startForTurn(turnId);
      await this.#ledger.apply({ type: 'startQueuedTurn', turnId });
      await this.#checkpointing.turnStarts(turnId);
      await this.#exec(generation, turnId);
      await this.#dispatchNext();
      return { turnId, started: true };
    });
  }

  /** Replaces the text of a queued prompt that has not started; its place, images and client message id stay. */
  editQueuedTurn(turnId: string, prompt: string): Promise<QueuedPrompt> {
    return this.queue.run(async () => {
      this.#assertOpen();
      const decision = decideEdit(await this.#turn(turnId), prompt);
      if (decision.kind === 'missing') throw new HostError('not_found', 'no such turn in this session');
      if (decision.kind === 'conflict') throw new HostError('conflict', decision.message);
      if (decision.kind === 'invalid') {
        throw new HostError('validation_failed', 'the body is invalid', [
          { path: 'prompt', message: decision.message },
        ]);
      }
      await this.#ledger.apply({ type: 'editQueuedTurn', turnId, prompt });
      const edited = this.#ledger.turn(turnId);
      if (edited === undefined) throw new HostError('internal', 'the edited prompt is missing');
      return queuedPrompt(edited);
    });
  }

  /** Resume: no queued prompt is paused any more; the first starts now unless a user turn runs. */
  unpauseQueue(): Promise<ResumeQueueResponse> {
    return this.queue.run(async () => {
      this.#assertOpen();
      const idle = this.#ledger.runningUserTurn() === undefined;
      // The sidecar first: one that cannot start is a 503 and the queue stays paused, nothing lost.
      if (idle && this.#ledger.queuedTurns().length > 0) {
        await this.#startForTurn(this.#ledger.queuedTurns()[0]?.id);
      }
      await this.#ledger.apply({ type: 'resumeQueue' });
      await this.#dispatchNext();
      return {
        startedTurnId: idle ? (this.#ledger.runningUserTurn()?.id ?? null) : null,
        queuedPrompts: this.#ledger.queuedTurns().map(queuedPrompt),
      };
    });
  }

  answerInteraction(
    requestId: string,
    body: AnswerInteractionBody,
  ): Promise<{ replayed: boolean; interaction: Interaction }> {
    const session = { sessionId: this.id, store: this.#deps.store, ledger: this.#ledger, inSidecar: this.#inSidecar };
    return this.queue.run(() => answerInteraction(session, requestId, body));
  }

  createTask(body: Omit<CreateTaskBody, 'session_id'>): Promise<Task> {
    return this.queue.run(() => this.#ledger.createUserTask(body));
  }

  updateTask(taskId: string, patch: PatchTaskBody): Promise<Task> {
    return this.queue.run(() => this.#ledger.updateUserTask(taskId, patch));
  }

  deleteTask(taskId: string): Promise<void> {
    return this.queue.run(() => this.#ledger.deleteUserTask(taskId));
  }

  rename(title: string): Promise<void> {
    return this.queue.run(() => this.#ledger.apply({ type: 'rename', title }));
  }

  /** Archive or restore (`SessionArchive` decides when), on the queue once `check` passed there (it may throw). */
  setArchived(archived: boolean, check: (session: SessionRecord) => void = () => undefined): Promise<void> {
    return this.queue.run(async () => {
      check(this.#ledger.session);
      await this.#ledger.apply({ type: 'archive', archived });
    });
  }

  updateSettings(patch: PatchSettingsBody): Promise<void> {
    return this.queue.run(async () => {
      this.#assertOpen();
      const generation = this.#inSidecar.liveGeneration();
      if (generation !== undefined) {
        try {
          await this.#deps.sidecar.request(generation, 'apply_settings', { agentSessionId: this.id, ...patch });
        } catch (error) {
          const failure = classifySidecarFailure(error);
          switch (failure.kind) {
            case 'refused':
              throw (
                modelRejectionOf(error) ??
                new HostError('validation_failed', `the agent refused the settings: ${failure.message}`)
              );
            case 'gone':
              // A sidecar that is gone takes the settings with the session's next `start`.
              break;
            default:
              throw hostErrorOf(failure, 'apply the settings');
          }
        }
      }
      await this.#ledger.apply({ type: 'changeSettings', patch });
    });
  }

  /**
   * Work on the session's files (a rewind, a revert, a worktree action) on its queue, so that no turn starts
   * meanwhile; refused while a turn runs or prompts wait to start (paused ones wait for the user, so they do
   * not block it). The command `record` makes of its result is applied.
   */
  whileIdle<T>(
    work: () => Promise<T>,
    record: (result: T) => SessionCommand | undefined = () => undefined,
  ): Promise<T> {
    return this.queue.run(async () => {
      if (mustWait(this.#ledger.runningUserTurn(), this.#ledger.queuedTurns())) {
        throw new HostError('conflict', 'a turn is running or waiting; try again once the session is idle');
      }
      const result = await work();
      const command = record(result);
      if (command !== undefined) await this.#ledger.apply(command);
      return result;
    });
  }

  /** No more turns; queued ones are removed, running ones end when the sidecar closes the session. */
  close(): Promise<void> {
    return this.queue.run(async () => {
      if (this.#ledger.session.closed) return;
      for (const queued of this.#ledger.queuedTurns())
        await this.#ledger.apply({ type: 'cancelQueuedTurn', turnId: queued.id });
      await this.#ledger.apply({ type: 'close' });
      await this.#closeInSidecar();
    });
  }

  // ─── sidecar ─────────────────────────────────────────────────────────────────────────────────

  /**
   * Events of one stdout chunk, and those that arrive while the session's previous events are committed,
   * apply as one batch (one transaction, one publish), in order with the session's commands.
   */
  onSidecarEvent(event: SidecarEvent): void {
    void this.queue.runBatched(event, this.#applyEvents);
  }

  readonly #applyEvents = async (events: readonly SidecarEvent[]): Promise<void> => {
    for (const event of events) this.#toolTimeouts?.observe(event);
    let applied: readonly AppliedSidecarEvent[];
    try {
      applied = await this.#applyDurably(events);
    } catch (error) {
      if (events.length === 1 || error instanceof StoreError) {
        for (const event of events) this.#logFailure(`apply ${event.type}`, error);
        return;
      }
      // Not the store: one of them could not be applied. Each alone now, so only one that fails alone is lost.
      this.#logFailure(`apply a batch of ${events.length}`, error);
      for (const event of events) await this.#applyEvents([event]);
      return;
    }
    let ended = false;
    for (const [index, event] of events.entries()) {
      try {
        if (await this.#afterApplied(event, applied[index]!)) ended = true;
      } catch (error) {
        this.#logFailure(`apply ${event.type}`, error);
      }
    }
    if (!ended) return;
    await this.#outside?.turnEnded();
    await this.#dispatchNext().catch((error: unknown) => this.#logFailure('dispatch', error));
  };

  /** What an applied event asks of the runtime; true when it ended a turn. */
  async #afterApplied(event: SidecarEvent, applied: AppliedSidecarEvent): Promise<boolean> {
    const turnId = (event.payload as { turnId?: unknown }).turnId;
    if (applied.identityViolationTurnId !== undefined) {
      this.#deps.logger.warn(
        {
          event: 'session.identity_violation',
          sessionId: this.id,
          turnId: applied.identityViolationTurnId,
          type: event.type,
        },
        'output of a turn before its provider identity, or a second identity: the turn failed',
      );
      void this.#cancelInSidecar(applied.identityViolationTurnId, 'identity_violation');
    } else if (applied.dropped !== undefined) {
      this.#deps.logger.warn(
        {
          event: 'session.event_dropped',
          sessionId: this.id,
          turnId: typeof turnId === 'string' ? turnId : undefined,
          type: event.type,
          reason: applied.dropped,
        },
        'a sidecar event named something the session does not have',
      );
    }
    // Claude Code died under the turn: what it ran in process groups of its own (a tool) outlives it; the
    // session has no Claude Code now (the next exec starts one), so everything with its mark is left over.
    if (event.type === 'turn_failed' && (event.payload as { code?: unknown }).code === CLAUDE_CODE_EXITED_CODE) {
      await this.#inSidecar.reapOrphans();
    }
    return applied.endedTurnIds.length > 0;
  }

  /** The sidecar this session ran on died: its running turns end at once; queued prompts go on. */
  onSidecarExit(report: SidecarExitReport): void {
    this.queue
      .run(async () => {
        if (report.generation !== this.#inSidecar.startedOn) return;
        this.#inSidecar.forget();
        this.#toolTimeouts?.clear();
        if (report.expected) return;
        await this.#ledger.apply({
          type: 'sidecarExited',
          error: { message: report.message, code: 'sidecar_exited', apiErrorStatus: null },
        });
        await this.#dispatchNext();
      })
      .catch((error: unknown) => this.#logFailure('sidecar exit', error));
  }

  /**
   * *A restart ends what ran*: what a previous run of the host left running is over (`interrupted`, one `done` each),
   * what it left pending is superseded. Also what a shutdown does before it stops the sidecar (`stopping`:
   * the turn then says the host was stopped, not that it crashed).
   */
  recover(stopping = false): Promise<void> {
    return this.queue.run(async () => {
      const { session } = this.#ledger;
      const live =
        this.#ledger.liveTurns().length > 0 || session.needsInputCount > 0 || session.backgroundTasks.length > 0;
      // The turn a previous run left running took its start checkpoint there; its end is taken now.
      this.#checkpointing.adoptRunningTurn();
      if (live) await this.#ledger.apply({ type: 'recoverAfterRestart', stopping });
      await this.#checkpointing.endOfEndedTurn();
    });
  }

  /** After a restart: runs what was left queued, in order (a paused prompt stays paused). */
  resumeQueue(): Promise<void> {
    return this.queue.run(() => this.#dispatchNext());
  }

  /**
   * The transcript changed on disk (the history's watch). While the session is idle, what grew outside
   * Outrigger is shown now; while it works, the check before its next turn sees it.
   */
  transcriptChanged(): void {
    this.#outside?.changed();
  }

  /** Forgets the sidecar the session ran on (the host is shutting down). */
  stop(): void {
    this.#stopped = true;
    this.#outside?.stop();
    this.#toolTimeouts?.clear();
  }

  // ─── internals (always on the queue) ─────────────────────────────────────────────────────────

  /**
   * Stores a new turn. A commit the store kept without confirming it (the ledger reloads what the store has)
   * is an accepted turn: it must run like any other, or it would stay running (or queued) for ever.
   */
  async #acceptTurn(turnId: string, draft: PromptInput, queued: boolean): Promise<void> {
    try {
      await this.#ledger.apply({ type: 'acceptTurn', turnId, prompt: draft, queued });
    } catch (error) {
      if (this.#ledger.turn(turnId) === undefined) throw error;
      this.#deps.logger.warn(
        { event: 'session.commit_unconfirmed', sessionId: this.id, turnId, errorName: failureName(error) },
        'the store kept the turn without confirming it; it goes on',
      );
    }
  }

  /**
   * Applies sidecar events (all or none); while the store refuses writes they are tried again, and the events
   * after them wait (they apply in order), until the store takes writes or the host stops. Dropping them
   * instead would lose what Claude did, and a dropped terminal would leave its turn running for ever.
   */
  #applyDurably(events: readonly SidecarEvent[]): Promise<AppliedSidecarEvent[]> {
    return this.#whileStoreRefuses(events[0]!.type, () => this.#ledger.applySidecarEvents(events));
  }

  /** Runs `write` until the store takes it or the host stops (`storeRetry.ts`). */
  #whileStoreRefuses<T>(type: string, write: () => Promise<T>): Promise<T> {
    return untilTheStoreTakes(write, {
      stopped: () => this.#stopped,
      onFirstRefusal: (error) =>
        this.#deps.logger.warn(
          { event: 'session.store_retry', sessionId: this.id, type, errorName: failureName(error) },
          'the store refused a write; trying again until it takes writes',
        ),
    });
  }

  async #steer(running: TurnRecord, body: PostTurnBody): Promise<PostTurnResponse> {
    const generation = this.#inSidecar.liveGeneration();
    if (generation === undefined) {
      throw new HostError('sidecar_unavailable', 'the running turn has lost its sidecar');
    }
    const draft = draftTurn(body, {
      sessionId: this.id,
      turnId: running.id,
      now: this.#deps.now(),
      newId: this.#deps.newId,
    });
    const content = await promptBlocks(draft.prompt, draft.input, async (id) =>
      draft.attachments.find((attachment) => attachment.id === id),
    );
    try {
      await this.#deps.sidecar.request(generation, 'guide', { agentSessionId: this.id, prompt: body.prompt, content });
    } catch (error) {
      const failure = classifySidecarFailure(error);
      if (failure.kind === 'refused') {
        throw new HostError('conflict', `the running turn could not take the message: ${failure.message}`);
      }
      throw hostErrorOf(failure, 'steer the running turn');
    }
    await this.#ledger.apply({ type: 'steer', turnId: running.id, prompt: draft });
    return { turnId: running.id, queued: false, steered: true, replayed: false };
  }

  /** Hands a running turn to the sidecar; a refusal fails the turn (a gone sidecar is the exit's to report). */
  async #exec(generation: number, turnId: string): Promise<void> {
    const turn = this.#ledger.turn(turnId);
    if (turn === undefined) return;
    try {
      const content = await promptBlocks(turn.prompt ?? '', turn.input, (id) => this.#deps.store.getAttachment(id));
      await this.#deps.sidecar.request(generation, 'exec', {
        agentSessionId: this.id,
        turnId,
        prompt: turn.prompt ?? '',
        content,
      });
    } catch (error) {
      if (classifySidecarFailure(error).kind === 'gone' && this.#inSidecar.startedOn === generation) return;
      this.#deps.logger.warn(
        { event: 'session.exec_failed', sessionId: this.id, turnId, errorName: failureName(error) },
        'the turn could not be handed to the sidecar',
      );
      await this.#ledger.apply({
        type: 'failTurn',
        turnId,
        error: {
          message: `the turn could not be started: ${error instanceof Error ? error.message : String(error)}`,
          code: 'dispatch_failed',
          apiErrorStatus: null,
        },
      });
    }
  }

  /** Runs the next queued prompt that is not paused once no user turn runs; each that cannot start ends with its error. */
  async #dispatchNext(): Promise<void> {
    for (;;) {
      await this.#checkpointing.endOfEndedTurn();
      if (this.#ledger.session.closed || this.#ledger.runningUserTurn() !== undefined) return;
      const next = nextQueued(this.#ledger.queuedTurns());
      if (next === undefined) return;
      let generation: number;
      try {
        generation = await this.#startForTurn(next.id);
      } catch (error) {
        await this.#ledger.apply({
          type: 'failTurn',
          turnId: next.id,
          error: turnErrorOf(classifySidecarFailure(error)),
        });
        continue;
      }
      // The queue must not stall on a store outage: nothing else would start it once the store is back. A start
      // the store kept without confirming it shows in the reloaded ledger and is not written twice.
      await this.#whileStoreRefuses('start_queued_turn', async () => {
        if (this.#ledger.turn(next.id)?.status === 'queued')
          await this.#ledger.apply({ type: 'startQueuedTurn', turnId: next.id });
      });
      await this.#checkpointing.turnStarts(next.id);
      await this.#exec(generation, next.id);
    }
  }

  /**
   * Before a turn: what grew outside Outrigger since its last turn is shown (and its Claude Code stopped, to read
   * it), then the sidecar has the session (`nextTurnId`: the turn about to start, when it exists already).
   */
  async #startForTurn(nextTurnId?: string): Promise<number> {
    await this.#outside?.beforeTurn(nextTurnId);
    return this.#inSidecar.ensureStarted(this.#ledger.session, this.#ledger.hasTranscript());
  }

  async #closeInSidecar(): Promise<void> {
    this.#toolTimeouts?.clear();
    await this.#inSidecar.close();
  }

  /**
   * A cancel the host decides itself (a tool time-out, an identity violation): sent straight to the
   * sidecar, whatever the host already recorded for the turn; its events apply as they come.
   */
  async #cancelInSidecar(turnId: string, why: string): Promise<void> {
    const generation = this.#inSidecar.liveGeneration();
    if (generation === undefined) return;
    try {
      const budgets = this.#deps.internalCancelBudgets ?? HOST_CANCEL_BUDGETS;
      const result = await this.#inSidecar.requestCancel(generation, turnId, budgets, why);
      this.#deps.logger.info(
        { event: 'session.host_cancel', sessionId: this.id, turnId, reason: why, disposition: result.disposition },
        'the host canceled a turn',
      );
    } catch (error) {
      this.#logFailure(`cancel after ${why}`, error);
    }
  }

  async #turn(turnId: string): Promise<TurnRecord | undefined> {
    return this.#ledger.turn(turnId) ?? (await this.#deps.store.getTurn(this.id, turnId));
  }

  #assertOpen(): void {
    if (this.#ledger.session.closed) throw new HostError('session_closed', 'the session is closed');
  }

  #logFailure(what: string, error: unknown): void {
    this.#deps.logger.error(
      { event: 'session.task_failed', sessionId: this.id, stage: what, errorName: failureName(error) },
      'a session task failed',
    );
  }
}
