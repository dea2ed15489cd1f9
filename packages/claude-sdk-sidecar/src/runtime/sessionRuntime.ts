import { randomUUID, type UUID } from 'node:crypto';
import type {
  HookCallbackMatcher,
  Options,
  PermissionMode,
  PostToolUseHookInput,
  SDKMessage,
  SDKResultMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type {
  ApplySettingsPayload,
  CancelPayload,
  CancelResult,
  DispatchPhase,
  EmitEvent,
  ExecPayload,
  GoalCommand,
  GuidePayload,
  InteractiveDispositionPayload,
  InteractiveResult,
  StartPayload,
  StartResult,
  StopTaskPayload,
  StopTaskResult,
  SubmitInteractivePayload,
} from '@outrigger/protocol';
import { goalCommandOf } from '@outrigger/protocol';
import { resolveClaudeExecutable } from '../config/executablePath.ts';
import { mapPermissionMode } from '../config/permissionMode.ts';
import { buildQueryEnv } from '../config/settingsEnv.ts';
import type { ResolvedStartOptions } from '../config/startOptions.ts';
import { BackgroundTaskLifecycle } from '../continuation/backgroundTaskLifecycle.ts';
import { CancelDiagnostics, type QueryShutdownObserver } from '../diagnostics/cancelDiagnostics.ts';
import { ProviderTurnDiagnostics, type ProviderTurnSnapshot } from '../diagnostics/providerTurnDiagnostics.ts';
import { GoalExecQueue } from '../goals/goalExecQueue.ts';
import { GoalProjection, type GoalTurn } from '../goals/goalProjection.ts';
import { GoalTranscriptTail, sessionTranscriptPath } from '../goals/goalTranscript.ts';
import { createCanUseTool } from '../interaction/canUseTool.ts';
import { InteractiveRegistry } from '../interaction/interactiveRegistry.ts';
import { SessionPermissionLedger } from '../interaction/sessionPermissionLedger.ts';
import { createStreamProjector, type StreamProjector } from '../projection/index.ts';
import type { RequestContext, SidecarSession } from '../server/sidecarSession.ts';
import { AUTHENTICATION_REJECTED } from './authRejection.ts';
import { CanceledTailQuarantine } from './canceledTailQuarantine.ts';
import type { QueryFactory } from './claudeQuery.ts';
import { usageAfterResult } from './contextUsage.ts';
import { IdleQueryTimer } from './idleQueryTimer.ts';
import { MessageRouter, type MessageRouterHost } from './messageRouter.ts';
import { DEFAULT_MODEL, ModelCatalogue } from './modelCatalogue.ts';
import { buildPromptContent } from './promptContent.ts';
import { PromptQueue } from './promptQueue.ts';
import type { TurnIdentityResolver } from './providerTurnIdentity.ts';
import { ProviderTurnIdentityBarrier } from './providerTurnIdentity.ts';
import { describeQueryEnd } from './queryFailure.ts';
import { QueryGeneration, type ShutdownOptions } from './queryGeneration.ts';
import { isTerminalConnectionError, terminalForResult } from './resultSettlement.ts';
import { ResultWatchdog } from './resultWatchdog.ts';
import { readResumeCursor, resumeCursor } from './resumeCursor.ts';
import {
  DEFAULT_RUNTIME_TIMERS,
  type RuntimeTimers,
  readSessionTitleFromTranscript,
  resolveStartOptionsFromConfig,
  resolveTurnIdentityFromTranscript,
  type SessionTitleReader,
  type StartOptionsResolver,
  sdkQueryFactory,
} from './runtimeDefaults.ts';
import { asRecord, isRootMessage, rootPromptEcho, stringField, systemSubtype } from './sdkMessages.ts';
import { type RuntimeTurn, TurnLifecycle, type TurnTerminal } from './turnLifecycle.ts';

export interface SessionRuntimeOptions {
  payload: StartPayload;
  emit: EmitEvent;
  /** The sidecar's environment, the lowest layer of every Query env. */
  processEnv?: NodeJS.ProcessEnv;
  queryFactory?: QueryFactory;
  resolveTurnIdentity?: TurnIdentityResolver;
  resolveStartOptions?: StartOptionsResolver;
  readSessionTitle?: SessionTitleReader;
  providerTurnDiagnostics?: ProviderTurnDiagnostics;
  timers?: Partial<RuntimeTimers>;
}

const SESSION_ENDED = 'Claude SDK session ended';
const CONNECTION_LOST = 'Claude SDK connection lost';
const SESSION_CLOSED = 'Claude SDK session closed';
const QUERY_CLOSED = 'Claude SDK query is closed';
/** What a pending approval and a running tool call end with when their turn is canceled. */
const TOOL_USE_ABORTED = 'Tool use aborted';

/** An `exec` with Goal fields, waiting in the Goal queue for its batch. */
interface GoalExec {
  readonly turnId: string;
  readonly command: GoalCommand;
  readonly payload: ExecPayload;
}

/**
 * One Agent Session on the real SDK. It owns the Turn queue and at most one live Query generation, and
 * coordinates the collaborators around them: the router and identity barrier (what may be published and
 * when), the projector (what it looks like), the interactions (what the user must answer) and the watchdog
 * (a Turn always ends).
 */
export class SessionRuntime implements SidecarSession, MessageRouterHost {
  readonly agentSessionId: string;
  readonly emit: EmitEvent;
  readonly turns: TurnLifecycle;
  readonly projector: StreamProjector;
  readonly #queryFactory: QueryFactory;
  readonly #resolveStartOptions: StartOptionsResolver;
  readonly #readSessionTitle: SessionTitleReader;
  readonly #providerTurnDiagnostics: ProviderTurnDiagnostics;
  readonly #timers: RuntimeTimers;
  readonly #payload: StartPayload;
  readonly #processEnv: NodeJS.ProcessEnv;
  readonly #cwd: string;
  readonly #barrier: ProviderTurnIdentityBarrier;
  readonly #router: MessageRouter;
  readonly #interactions = new InteractiveRegistry();
  readonly #permissionLedger = new SessionPermissionLedger();
  readonly #watchdog: ResultWatchdog;
  readonly #background: BackgroundTaskLifecycle;
  readonly #catalogue = new ModelCatalogue();
  readonly #identityWarnings = new Map<string, () => void>();
  readonly #assistantErrors = new Map<string, string>();
  readonly #idleQuery: IdleQueryTimer;
  /** Generations being shut down in the background (retired or detached); close waits for them. */
  readonly #stopping = new Set<Promise<unknown>>();
  readonly #goalQueue: GoalExecQueue<GoalExec>;
  readonly #goals: GoalProjection;
  readonly #goalTail = new GoalTranscriptTail();
  /**
   * Whether Goal evidence can exist: a restored session, a Goal command or an `active_goal` message. Until
   * then no turn pays for reading the transcript.
   */
  #goalsInPlay: boolean;
  #lastSettledTurn: RuntimeTurn | undefined;
  /** Config dir, cwd and session id of the transcript the Goal tail follows. */
  #followedTranscript: string | undefined;
  /** A cancel retired the last Query: the next one must drop the canceled run's tail (reference §3.1). */
  #quarantineNextGeneration = false;
  #providerSessionId: string;
  /** Whether Claude Code has a transcript for the session, so a new Query must `resume` it. */
  #resumable: boolean;
  #lastAssistantUuid: string | undefined;
  #startOptions: ResolvedStartOptions | undefined;
  #permissionMode: PermissionMode = 'default';
  #selectedModel: string;
  #effectiveModel: string | undefined;
  #flagSettings: Record<string, unknown> = {};
  #title: string | undefined;
  #generation: QueryGeneration | undefined;
  #nextGenerationId = 1;
  #guidanceInterruptPending = false;
  #closed = false;

  constructor(options: SessionRuntimeOptions) {
    const { payload } = options;
    this.agentSessionId = payload.agentSessionId;
    this.emit = options.emit;
    this.#queryFactory = options.queryFactory ?? sdkQueryFactory;
    this.#resolveStartOptions = options.resolveStartOptions ?? resolveStartOptionsFromConfig;
    this.#readSessionTitle = options.readSessionTitle ?? readSessionTitleFromTranscript;
    this.#providerTurnDiagnostics = options.providerTurnDiagnostics ?? new ProviderTurnDiagnostics();
    this.#timers = { ...DEFAULT_RUNTIME_TIMERS, ...options.timers };
    this.#payload = payload;
    this.#processEnv = options.processEnv ?? process.env;
    this.#cwd = payload.cwd || process.cwd();
    const restored = readResumeCursor(payload.resumeCursor);
    this.#providerSessionId = restored.resume ?? (payload.providerSessionId || randomUUID());
    this.#resumable = restored.resume !== undefined || payload.restore === true;
    this.#lastAssistantUuid = restored.resumeSessionAt;
    this.#selectedModel = payload.settings?.model || DEFAULT_MODEL;
    this.turns = new TurnLifecycle(this.emit, {
      onIdentityBound: (turn) => this.#disarmIdentityWarning(turn),
      beforeTerminal: (turn, terminal) => this.#closeOpenToolCalls(turn, terminal),
      onSettled: (turn) => this.#afterSettle(turn),
    });
    this.turns.settledCount = restored.turnCount;
    this.projector = createStreamProjector({ emit: this.emit });
    this.#barrier = new ProviderTurnIdentityBarrier({
      resolve: options.resolveTurnIdentity ?? resolveTurnIdentityFromTranscript,
      retry: this.#timers.identityRetry,
      diagnostics: this.#providerTurnDiagnostics,
      bind: (turn, identity) => {
        if (this.turns.bindIdentity(turn, identity.providerTurnId) === 'conflict') return false;
        this.turns.checkpoint(turn, identity.providerCheckpointMessageId);
        return true;
      },
    });
    this.#router = new MessageRouter(this);
    this.#idleQuery = new IdleQueryTimer(this.#timers.idleQueryTtlMs, () => this.#onIdleQueryExpired());
    this.#goalQueue = new GoalExecQueue<GoalExec>({
      emit: this.emit,
      dispatch: (exec) => this.#dispatchExec(exec.payload, exec.command),
    });
    this.#goals = new GoalProjection(this.emit);
    this.#goalsInPlay = this.#resumable;
    this.#watchdog = new ResultWatchdog(this.#timers.resultTimeoutMs, () => this.#onResultTimeout());
    this.#background = new BackgroundTaskLifecycle({
      emit: this.emit,
      startTimeoutMs: this.#timers.continuationStartTimeoutMs,
      turns: {
        // The turn root output goes to: the active one, or the dispatched one Claude Code is about to start.
        activeTurn: () => this.turns.outputTarget(),
        reserveSyntheticTurn: () => this.turns.openSynthetic(this.#generation?.id).turnId,
        completeTurn: (turnId, stopReason, syntheticTimeout) => {
          const turn = this.turns.find(turnId);
          if (turn) this.turns.settle(turn, { type: 'turn_completed', stopReason, syntheticTimeout });
        },
        interrupt: () => this.#abandonContinuation(),
      },
    });
  }

  get providerSessionId(): string {
    return this.#providerSessionId;
  }

  async start(): Promise<StartResult> {
    const startOptions = await this.#resolveStartOptions(this.#payload, { processEnv: this.#processEnv });
    this.#startOptions = startOptions;
    this.#permissionMode = startOptions.permissionMode;
    const generation = this.#ensureGeneration();
    try {
      const initialization = await generation.query.initializationResult?.();
      this.#catalogue.replace(initialization?.models);
    } catch (error) {
      this.#detach(generation, { active: describeQueryEnd(error), queued: SESSION_ENDED });
      throw error;
    }
    // Only rows appended from now on count: what a restored transcript already holds was reported before.
    this.#followTranscript(generation, this.#providerSessionId, this.#cwd);
    this.emit('session_started', this.#sessionSnapshot());
    this.#idleQuery.arm();
    return { providerSessionId: this.#providerSessionId };
  }

  async exec(payload: ExecPayload): Promise<void> {
    if (this.#closed) {
      this.emit('turn_failed', { turnId: payload.turnId, error: QUERY_CLOSED });
      return;
    }
    const { turnId } = payload;
    if (this.turns.find(turnId) || this.#goalQueue.has(turnId)) throw new Error(`turn ${turnId} is already running`);
    const goal = goalCommandOf(payload);
    if (goal) {
      this.#goalsInPlay = true;
      this.#goalQueue.enqueue({ turnId, command: goal, payload });
      return;
    }
    this.#dispatchExec(payload, undefined);
  }

  #dispatchExec(payload: ExecPayload, goal: GoalCommand | undefined): void {
    this.#idleQuery.disarm();
    this.#background.onExec();
    const turn = this.turns.enqueue({
      turnId: payload.turnId,
      correlationId: payload.promptCorrelationId || randomUUID(),
      turnOrigin: payload.turnOrigin || undefined,
      goal,
    });
    // The ok answers the request at once; the prompt is handed to Claude Code right after it.
    setImmediate(() => this.#dispatch(turn, payload));
  }

  async guide(payload: GuidePayload): Promise<void> {
    const turn = this.turns.active;
    const generation = this.#generation;
    if (!turn || !generation || generation.revoked) throw new Error('Claude SDK guidance requires an active turn');
    this.#guidanceInterruptPending = true;
    try {
      await generation.query.interrupt?.();
    } catch (error) {
      this.#guidanceInterruptPending = false;
      throw error;
    }
    this.emit('guidance_interrupted', { turnId: turn.turnId });
    generation.prompts.push({
      type: 'user',
      uuid: randomUUID(),
      session_id: this.#providerSessionId,
      parent_tool_use_id: null,
      message: {
        role: 'user',
        content: buildPromptContent({ prompt: payload.prompt, content: payload.content, hostContext: '' }),
      },
    });
  }

  async cancel(payload: CancelPayload, context: RequestContext): Promise<CancelResult> {
    const expected = payload.turnId || this.turns.active?.turnId || '';
    const diagnostics = new CancelDiagnostics({
      requestId: context.requestId ?? '',
      agentSessionId: this.agentSessionId,
      providerSessionId: this.#providerSessionId,
      turnId: payload.turnId,
    });
    const budgets = { interruptTimeoutMs: payload.interruptTimeoutMs, drainTimeoutMs: payload.drainTimeoutMs };
    diagnostics.cancelReceived(budgets);
    try {
      const result = await this.#cancel(expected, { ...budgets, observe: diagnostics.observeShutdown });
      diagnostics.cancelSucceeded(result);
      return result;
    } catch (error) {
      diagnostics.cancelFailed(error, errorStage(error));
      throw error;
    }
  }

  /** Reference §3.4: fence at once, publish terminals only after the Query's authoritative shutdown. */
  async #cancel(
    expected: string,
    shutdown: { interruptTimeoutMs: number; drainTimeoutMs: number; observe: QueryShutdownObserver },
  ): Promise<CancelResult> {
    const outcome = (
      canceled: boolean,
      disposition: CancelResult['disposition'],
      providerTurnId = '',
      dispatchPhase: CancelResult['dispatchPhase'] = 'unknown',
    ): CancelResult => ({ canceled, disposition, turnId: expected, providerTurnId, dispatchPhase });
    if (this.#closed || !expected) return outcome(false, 'absent');
    // A Goal command still waiting for its batch never reached Claude Code: it is withdrawn locally.
    if (this.#goalQueue.cancelExact(expected)) return outcome(true, 'pre_accept', '', 'pending_goal');
    const target = this.turns.prepareExactCancellation(expected);
    if (target.kind === 'absent' || target.kind === 'mismatch') return outcome(false, target.kind);
    if (target.kind === 'unresolved') {
      throw new Error(`Claude SDK exact cancellation remains unresolved for turn ${expected}`);
    }
    const turn = target.turn;
    const phase = turn.phase;
    const providerTurnId = turn.providerTurnId ?? '';
    const generation = this.#generation;
    const owned = generation !== undefined && turn.generationId === generation.id;
    if (target.kind === 'queued' && target.differentActiveTurn && phase !== 'queued' && !owned) {
      this.turns.releaseCancellation(turn);
      return outcome(false, 'mismatch', '', phase);
    }
    if (phase === 'queued') {
      // Never handed to Claude Code: nothing to stop, the Turn ends here.
      this.turns.commitCancellation(turn);
      return outcome(true, 'pre_accept', '', phase);
    }
    if (!owned) {
      // Its Query is gone. Evidence of acceptance must not be reported as an ordinary absence.
      if (providerTurnId) {
        this.turns.releaseCancellation(turn);
        return outcome(false, 'provider_state_lost', providerTurnId, phase);
      }
      this.turns.commitCancellation(turn);
      return outcome(false, 'absent', '', phase);
    }
    // One interrupt retires the whole generation, so every Turn it holds ends canceled.
    const canceled = this.turns.unsettled().filter((candidate) => candidate.generationId === generation.id);
    for (const candidate of canceled) candidate.canceling = true;
    this.#quarantineNextGeneration = true;
    this.#background.onCancel();
    this.#barrier.abort();
    this.#interactions.rejectAll(TOOL_USE_ABORTED);
    this.#watchdog.disarm();
    this.#generation = undefined;
    await generation.shutdown({ interrupt: true, ...shutdown });
    for (const candidate of canceled) this.turns.commitCancellation(candidate);
    return outcome(true, providerTurnId ? 'provider_active' : 'pre_accept', providerTurnId, phase);
  }

  async stopTask(payload: StopTaskPayload): Promise<StopTaskResult> {
    const taskId = this.#background.runningTask(payload.taskId, payload.toolCallId);
    const query = this.#generation?.query;
    if (!taskId || !query?.stopTask) return { stopped: false };
    try {
      await query.stopTask(taskId);
      return { stopped: true };
    } catch {
      return { stopped: false };
    }
  }

  async submitInteractive(payload: SubmitInteractivePayload): Promise<InteractiveResult> {
    const { turnId, requestId, action, optionId, payload: answer } = payload;
    return this.#interactions.submit(turnId, requestId, action, optionId, answer);
  }

  async interactiveDisposition(payload: InteractiveDispositionPayload): Promise<InteractiveResult> {
    const { turnId, requestId, action, optionId, payload: expected } = payload;
    return this.#interactions.disposition(turnId, requestId, action, optionId, expected);
  }

  /**
   * Everything is applied to the live Query, which keeps serving the next turns. The values are also kept
   * for the next Query's create-time options; a flag the live Query cannot take retires it while idle, so
   * the next turn's Query starts with it.
   */
  async applySettings(payload: ApplySettingsPayload): Promise<void> {
    const query = this.#generation?.query;
    const canBypass = this.#startOptions?.canBypassPermissions ?? false;
    if (payload.permissionMode !== undefined && payload.permissionMode !== '') {
      this.#permissionMode = mapPermissionMode(payload.permissionMode, canBypass);
      await query?.setPermissionMode?.(this.#permissionMode);
    } else if (payload.planMode !== undefined) {
      this.#permissionMode = payload.planMode ? 'plan' : (this.#startOptions?.basePermissionMode ?? 'default');
      await query?.setPermissionMode?.(this.#permissionMode);
    }
    if (payload.model !== undefined && payload.model !== '') {
      this.#selectedModel = this.#catalogue.resolve(payload.model);
      this.#effectiveModel = undefined;
      await query?.setModel?.(this.#selectedModel === DEFAULT_MODEL ? undefined : this.#selectedModel);
    }
    const flags: Record<string, unknown> = {};
    if (payload.effort !== undefined && payload.effort !== '') flags.effortLevel = payload.effort;
    if (payload.speed !== undefined) flags.fastMode = payload.speed === 'fast';
    if (Object.keys(flags).length > 0) {
      this.#flagSettings = { ...this.#flagSettings, ...flags };
      await this.#applyFlagsLive(flags);
    }
    this.emit('session_state', this.#sessionSnapshot());
  }

  async #applyFlagsLive(flags: Record<string, unknown>): Promise<void> {
    const generation = this.#generation;
    if (!generation) return;
    if (!generation.query.applyFlagSettings) {
      this.#retireIfIdle(generation);
      return;
    }
    try {
      await generation.query.applyFlagSettings(flags);
    } catch (error) {
      this.#retireIfIdle(generation);
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#idleQuery.disarm();
    this.#goalTail.stop();
    for (const exec of this.#goalQueue.takeAll()) {
      this.emit('turn_failed', { turnId: exec.turnId, error: SESSION_CLOSED });
    }
    this.#background.reset();
    this.#barrier.abort();
    this.#interactions.rejectAll(SESSION_CLOSED);
    this.#watchdog.disarm();
    for (const cancelWarning of this.#identityWarnings.values()) cancelWarning();
    this.#identityWarnings.clear();
    const generation = this.#generation;
    this.#generation = undefined;
    try {
      if (generation) {
        await generation.shutdown({ interrupt: false, drainTimeoutMs: this.#timers.closeDrainTimeoutMs });
      }
    } finally {
      for (const turn of this.turns.unsettled()) {
        this.turns.settle(turn, { type: 'turn_failed', error: SESSION_CLOSED });
      }
      // A child retired or detached just before must not outlive the session.
      await Promise.allSettled(this.#stopping);
    }
  }

  // --- MessageRouterHost -------------------------------------------------------------------------------

  awaitIdentity(turn: RuntimeTurn, phase: DispatchPhase, generation: QueryGeneration): Promise<void> {
    return this.#barrier.await(turn, phase, {
      providerSessionId: this.#providerSessionId,
      cwd: this.#cwd,
      claudeConfigDir: generation.claudeConfigDir,
      generationId: generation.id,
    });
  }

  settleRootResult(result: SDKResultMessage, turn: RuntimeTurn, generation: QueryGeneration): void {
    // A result came: whatever follows (a retained turn's background work) is not a missing result.
    this.#watchdog.disarm();
    this.projector.project(result, turn.turnId);
    const guided = this.#guidanceInterruptPending;
    this.#guidanceInterruptPending = false;
    // The interrupt that made room for guidance ends in this result; the Turn goes on with the guidance.
    if (guided && result.subtype === 'error_during_execution') return;
    const terminal = terminalForResult(result, this.#assistantErrors.get(turn.turnId));
    const taskNotification = asRecord(result.origin)?.kind === 'task-notification';
    const succeeded = terminal.type === 'turn_completed';
    if (succeeded && !taskNotification) this.projector.completeBackgroundLaunches(turn.turnId);
    const decision = this.#background.onRootResult({ succeeded, taskNotification });
    if (decision === 'settle') {
      this.turns.settle(turn, terminal);
      if (isTerminalConnectionError(result))
        this.#detach(generation, { active: CONNECTION_LOST, queued: CONNECTION_LOST });
    }
    void this.#publishUsage(generation, result, turn.turnId);
    if (decision !== 'confirm') void this.#refreshTitle(generation);
  }

  rejectAuthentication(turn: RuntimeTurn, generation: QueryGeneration): void {
    this.turns.settle(turn, AUTHENTICATION_REJECTED);
    this.#detach(generation, { active: SESSION_ENDED, queued: SESSION_ENDED });
  }

  observeTurnOutput(message: SDKMessage, turn: RuntimeTurn): void {
    if (message.type !== 'assistant' || !isRootMessage(message)) return;
    this.#lastAssistantUuid = message.uuid;
    if (message.error) this.#assistantErrors.set(turn.turnId, message.error);
  }

  observeSession(message: SDKMessage): void {
    if (this.turns.active) this.#watchdog.observe(message);
    if (message.type !== 'result' || !isRootMessage(message)) this.#background.observe(message);
    if (systemSubtype(message) !== 'init') return;
    const model = stringField(message as Record<string, unknown>, 'model');
    if (model && model !== this.#effectiveModel) {
      this.#effectiveModel = model;
      this.emit('session_state', this.#sessionSnapshot());
    }
  }

  onUserTurnActivated(): void {
    this.#background.onUserTurnActivated();
  }

  rejectsLateOutput(message: SDKMessage): boolean {
    if (!isRootMessage(message)) return false;
    if (message.type === 'result') return this.#background.rejectLateRootResult();
    return this.#background.isRejectingTimedOutContinuation();
  }

  observeGoal(message: SDKMessage): Promise<void> | undefined {
    const record = message as Record<string, unknown>;
    // The SDK streams `active_goal` without listing it in its message union.
    if (record.type === 'active_goal') {
      this.#goalsInPlay = true;
      this.#goals.observe(message, this.#goalTurn());
      return undefined;
    }
    const subtype = systemSubtype(message);
    if (subtype === 'session_state_changed' && record.state === 'idle' && this.#goalsInPlay) {
      // A Goal still active when the provider goes idle got no verdict; the transcript may hold one.
      return this.#drainGoals().then(() => this.#goals.idle(this.#goalTurn()));
    }
    if (subtype === 'init' || subtype === 'compact_boundary') {
      const sessionId = stringField(record, 'session_id');
      const generation = this.#generation;
      if (sessionId && generation)
        this.#followTranscript(generation, sessionId, stringField(record, 'cwd') ?? this.#cwd);
    }
    return undefined;
  }

  drainGoalEvidence(): Promise<void> | undefined {
    return this.#goalsInPlay ? this.#drainGoals() : undefined;
  }

  // --- goals -------------------------------------------------------------------------------------------

  /**
   * Claude Code writes Goal verdicts (`goal_status`) only to the transcript, so the tail follows it. Every
   * turn's `system/init` names the same file; only a change is looked up (the path needs a realpath).
   */
  #followTranscript(generation: QueryGeneration, sessionId: string, cwd: string): void {
    const location = `${generation.claudeConfigDir ?? ''}\u0000${cwd}\u0000${sessionId}`;
    if (location === this.#followedTranscript) return;
    this.#followedTranscript = location;
    this.#goalTail.follow(sessionTranscriptPath({ configDir: generation.claudeConfigDir, cwd, sessionId }));
  }

  async #drainGoals(): Promise<void> {
    let rows: unknown[];
    try {
      rows = await this.#goalTail.drain();
    } catch {
      return;
    }
    for (const row of rows) this.#goals.observe(row, this.#goalTurn());
  }

  /** Goal observations are reported on the running turn, else on the last one that ended. */
  #goalTurn(): GoalTurn | undefined {
    const turn = this.turns.active ?? this.#lastSettledTurn;
    if (!turn) return undefined;
    return {
      turnId: turn.turnId,
      ...(turn.providerTurnId ? { providerTurnId: turn.providerTurnId } : {}),
      ...(turn.goal ? { action: turn.goal.action } : {}),
    };
  }

  // --- generations ---------------------------------------------------------------------------------------

  #ensureGeneration(): QueryGeneration {
    const current = this.#generation;
    if (current && !current.revoked) return current;
    const startOptions = this.#startOptions;
    if (!startOptions) throw new Error('Claude SDK session is not started');
    const env = buildQueryEnv({
      processEnv: this.#processEnv,
      cwd: this.#cwd,
      payloadEnv: this.#payload.env ?? {},
    });
    const executable = resolveClaudeExecutable(env);
    const prompts = new PromptQueue();
    const id = this.#nextGenerationId++;
    let generation: QueryGeneration | undefined;
    const isActive = (): boolean => generation !== undefined && this.#generation === generation && !generation.revoked;
    const { queryOptions } = startOptions;
    const model = this.#selectedModel === DEFAULT_MODEL ? undefined : this.#selectedModel;
    const settings = { ...asRecord(queryOptions.settings), ...this.#flagSettings };
    const options: Options = {
      ...queryOptions,
      cwd: this.#cwd,
      env,
      ...(executable ? { pathToClaudeCodeExecutable: executable } : {}),
      includePartialMessages: true,
      includeHookEvents: true,
      extraArgs: { ...queryOptions.extraArgs, 'replay-user-messages': null },
      permissionMode: this.#permissionMode,
      allowDangerouslySkipPermissions: startOptions.canBypassPermissions,
      ...(model ? { model } : {}),
      ...(Object.keys(settings).length > 0 ? { settings } : {}),
      ...(this.#resumable ? { resume: this.#providerSessionId } : { sessionId: this.#providerSessionId }),
      canUseTool: createCanUseTool({
        registry: this.#interactions,
        ledger: this.#permissionLedger,
        emit: this.emit,
        resolveTurnId: () => this.turns.outputTarget()?.turnId,
        awaitTurnIdentity: async (turnId, phase, signal) => {
          const turn = this.turns.find(turnId);
          if (!turn || !generation) throw new Error(`turn ${turnId} is not running`);
          await this.#barrier.await(
            turn,
            phase,
            {
              providerSessionId: this.#providerSessionId,
              cwd: this.#cwd,
              claudeConfigDir: generation.claudeConfigDir,
              generationId: generation.id,
            },
            signal,
          );
          this.turns.activate(turn);
        },
        getPermissionMode: () => this.#permissionMode,
        canBypassPermissions: startOptions.canBypassPermissions,
        isGenerationActive: isActive,
      }),
      hooks: { PostToolUse: [this.#postToolUseHook(isActive)] },
    };
    const query = this.#queryFactory({ prompt: prompts, options });
    generation = new QueryGeneration({ id, query, prompts, claudeConfigDir: env.CLAUDE_CONFIG_DIR || undefined });
    this.#generation = generation;
    this.projector.reset();
    this.#background.reset();
    const quarantine = this.#quarantineNextGeneration
      ? new CanceledTailQuarantine((message) => this.#isCurrentPromptEcho(message))
      : undefined;
    this.#quarantineNextGeneration = false;
    generation.startConsuming(
      (message, owner) => (quarantine?.admits(message) === false ? undefined : this.#router.route(message, owner)),
      (owner, failure) => this.#onGenerationEnded(owner, failure),
    );
    return generation;
  }

  #isCurrentPromptEcho(message: SDKMessage): boolean {
    const echo = rootPromptEcho(message);
    return echo !== undefined && this.turns.awaitingCorrelation(echo.correlationId) !== undefined;
  }

  #postToolUseHook(isActive: () => boolean): HookCallbackMatcher {
    return {
      hooks: [
        async (input, toolUseId) => {
          if (!isActive()) return { continue: false };
          const turn = this.turns.active;
          if (turn && input.hook_event_name === 'PostToolUse') {
            this.projector.postToolUse(input as PostToolUseHookInput, toolUseId, turn.turnId);
          }
          return {};
        },
      ],
    };
  }

  #dispatch(turn: RuntimeTurn, payload: ExecPayload): void {
    if (turn.settled || turn.canceling) return;
    try {
      if (this.#closed) throw new Error(QUERY_CLOSED);
      const generation = this.#ensureGeneration();
      const content = buildPromptContent({
        prompt: payload.prompt,
        content: payload.content,
        hostContext: payload.hostContext,
      });
      if (content.length === 0) throw new Error('Claude SDK prompt is empty');
      turn.generationId = generation.id;
      turn.phase = 'dispatched';
      generation.prompts.push({
        type: 'user',
        uuid: turn.correlationId as UUID,
        session_id: this.#providerSessionId,
        parent_tool_use_id: null,
        // Each exec is its own Turn with its own result: never folded into a Turn that is still running.
        priority: 'later',
        message: { role: 'user', content },
      });
      this.#resumable = true;
      const warning = this.#providerTurnDiagnostics.schedulePendingIdentityWarning(() =>
        turn.settled ? undefined : this.#turnSnapshot(turn),
      );
      this.#identityWarnings.set(turn.turnId, () => warning.cancel());
    } catch (error) {
      this.turns.settle(turn, { type: 'turn_failed', error: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * The idle TTL ran out: free the child. Background work still owes output in this Query, so while it
   * runs the Query stays and the TTL starts over.
   */
  #onIdleQueryExpired(): void {
    const generation = this.#generation;
    if (!generation || this.#closed || !this.turns.idle) return;
    if (this.#background.hasBackgroundWork()) {
      this.#idleQuery.arm();
      return;
    }
    this.#retire(generation);
  }

  /**
   * A continuation that never started is given up. Claude Code keeps the interrupted follow-up queued and
   * would answer it with the next prompt, so a Query with nothing else to do is retired (interrupt, then
   * close); one that still serves a turn is only interrupted, and its late output is rejected.
   */
  async #abandonContinuation(): Promise<void> {
    const generation = this.#generation;
    if (!generation) return;
    if (!this.turns.idle) {
      await generation.query.interrupt?.();
      return;
    }
    this.#idleQuery.disarm();
    this.#generation = undefined;
    await this.#stop(generation, {
      interrupt: true,
      interruptTimeoutMs: 1_000,
      drainTimeoutMs: this.#timers.closeDrainTimeoutMs,
    });
  }

  #retireIfIdle(generation: QueryGeneration): void {
    if (this.#generation !== generation || !this.turns.idle || this.#background.hasBackgroundWork()) return;
    this.#retire(generation);
  }

  /** Takes an idle Query out of service; the next turn resumes the session in a new one. */
  #retire(generation: QueryGeneration): void {
    this.#idleQuery.disarm();
    if (this.#generation === generation) this.#generation = undefined;
    void this.#stop(generation, { interrupt: false, drainTimeoutMs: this.#timers.closeDrainTimeoutMs }).catch(
      () => undefined,
    );
  }

  /** Shuts a generation down and keeps track of it until it is done, so `close()` can wait for it. */
  #stop(generation: QueryGeneration, options: ShutdownOptions): Promise<unknown> {
    const stopped = generation.shutdown(options);
    const settled = stopped.catch(() => undefined);
    this.#stopping.add(settled);
    void settled.then(() => this.#stopping.delete(settled));
    return stopped;
  }

  #onGenerationEnded(generation: QueryGeneration, failure: unknown): void {
    if (this.#generation !== generation) return;
    for (const turn of this.turns.unsettled()) {
      if (turn.generationId !== generation.id || turn.providerTurnId || turn.synthetic) continue;
      if (failure === undefined) this.#providerTurnDiagnostics.queryEndedBeforeIdentity(this.#turnSnapshot(turn));
      else this.#providerTurnDiagnostics.queryConsumptionFailedBeforeIdentity(this.#turnSnapshot(turn), failure);
    }
    this.#detach(generation, { active: describeQueryEnd(failure), queued: SESSION_ENDED });
  }

  #onResultTimeout(): void {
    const generation = this.#generation;
    const turn = this.turns.active;
    if (!generation || !turn) return;
    const timeoutMs = this.#timers.resultTimeoutMs;
    this.#detach(generation, {
      active: `Claude SDK result did not arrive within ${timeoutMs}ms after the turn's answer`,
      queued: SESSION_ENDED,
    });
  }

  /**
   * Takes a generation out of service (the child is stopped in the background) and ends every Turn it
   * held: the one Claude Code was working on with `errors.active`, the ones behind it with `errors.queued`.
   * The session stays resumable; the next Turn starts a fresh Query with `resume`.
   */
  #detach(generation: QueryGeneration, errors: { active: string; queued: string }): void {
    if (this.#generation === generation) this.#generation = undefined;
    this.#background.reset();
    this.#barrier.abort();
    this.#watchdog.disarm();
    this.#interactions.rejectAll(SESSION_ENDED);
    void this.#stop(generation, {
      interrupt: true,
      interruptTimeoutMs: 1_000,
      drainTimeoutMs: this.#timers.closeDrainTimeoutMs,
    }).catch(() => undefined);
    let first = true;
    for (const turn of this.turns.unsettled()) {
      if (turn.generationId !== generation.id) continue;
      const error = first ? errors.active : errors.queued;
      first = false;
      if (turn.canceling) continue;
      this.turns.settle(turn, { type: 'turn_failed', error });
    }
  }

  #disarmIdentityWarning(turn: RuntimeTurn): void {
    this.#identityWarnings.get(turn.turnId)?.();
    this.#identityWarnings.delete(turn.turnId);
  }

  #turnSnapshot(turn: RuntimeTurn): ProviderTurnSnapshot {
    return {
      turnId: turn.turnId,
      providerSessionId: this.#providerSessionId,
      promptCorrelationId: turn.correlationId,
      generationId: turn.generationId,
      providerTurnPhase: turn.phase,
      awaitingProviderTurnIdentity: turn.providerTurnId === undefined,
    };
  }

  /** No tool card may run forever: a turn that did not complete fails what it left open (problem 14). */
  #closeOpenToolCalls(turn: RuntimeTurn, terminal: TurnTerminal): void {
    if (terminal.type === 'turn_completed') return;
    const error = terminal.type === 'turn_canceled' ? (terminal.error ?? TOOL_USE_ABORTED) : terminal.error;
    this.projector.failOpenToolCalls(turn.turnId, error);
  }

  #afterSettle(turn: RuntimeTurn): void {
    this.#disarmIdentityWarning(turn);
    this.#assistantErrors.delete(turn.turnId);
    this.#lastSettledTurn = turn;
    if (!this.turns.active) this.#watchdog.disarm();
    if (this.turns.idle && !this.#closed) this.#idleQuery.arm();
    this.emit('session_state', this.#sessionSnapshot());
  }

  async #publishUsage(generation: QueryGeneration, result: SDKResultMessage, turnId: string): Promise<void> {
    const usage = await usageAfterResult(generation.query, result, turnId);
    if (!this.#closed) this.emit('usage_updated', usage);
  }

  async #refreshTitle(generation: QueryGeneration): Promise<void> {
    let title: string | undefined;
    try {
      title = await this.#readSessionTitle({
        providerSessionId: this.#providerSessionId,
        cwd: this.#cwd,
        claudeConfigDir: generation.claudeConfigDir,
      });
    } catch {
      return;
    }
    const normalized = title?.replace(/\s+/g, ' ').trim();
    if (!normalized || normalized === this.#title || this.#closed) return;
    this.#title = normalized;
    this.emit('session_title_updated', { providerSessionId: this.#providerSessionId, title: normalized });
  }

  #sessionSnapshot() {
    const configOptions = this.#catalogue.configOptions(this.#selectedModel, this.#effectiveModel);
    const model = this.#effectiveModel ?? (this.#selectedModel === DEFAULT_MODEL ? undefined : this.#selectedModel);
    return {
      providerSessionId: this.#providerSessionId,
      ...(model ? { model } : {}),
      ...(configOptions ? { configOptions } : {}),
      resumeCursor: resumeCursor(this.#providerSessionId, this.#lastAssistantUuid, this.turns.settledCount),
    };
  }
}

function errorStage(error: unknown): string | undefined {
  const stage = typeof error === 'object' && error !== null ? (error as { stage?: unknown }).stage : undefined;
  return typeof stage === 'string' ? stage : undefined;
}
