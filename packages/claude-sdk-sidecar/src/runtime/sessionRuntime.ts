import { randomUUID, type UUID } from 'node:crypto';
import type { SDKMessage, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
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
import { loadClaudeAgentSdk } from '../config/claudeAgentSdk.ts';
import { resolveClaudeExecutable } from '../config/executablePath.ts';
import { buildQueryEnv } from '../config/settingsEnv.ts';
import type { ResolvedStartOptions } from '../config/startOptions.ts';
import { BackgroundTaskLifecycle } from '../continuation/backgroundTaskLifecycle.ts';
import { AuthRefreshDebug, type AuthRefreshRecord, type AuthRefreshStage } from '../diagnostics/authRefreshDebug.ts';
import { credentialValues, redactingEmit } from '../diagnostics/credentialRedaction.ts';
import { SidecarError } from '../diagnostics/diagnosticLine.ts';
import { ProviderTurnDiagnostics, type ProviderTurnSnapshot } from '../diagnostics/providerTurnDiagnostics.ts';
import { createCanUseTool } from '../interaction/canUseTool.ts';
import { InteractiveRegistry, TOOL_USE_ABORTED } from '../interaction/interactiveRegistry.ts';
import { SessionPermissionLedger } from '../interaction/sessionPermissionLedger.ts';
import { createStreamProjector, type StreamProjector } from '../projection/index.ts';
import { readResumeCursor, resumeCursor } from '../shared/resumeCursor.ts';
import { asRecord, isRootMessage, rootPromptEcho, stringField, systemSubtype } from '../shared/sdkMessages.ts';
import type { RequestContext, SidecarSession } from '../shared/sidecarSession.ts';
import { AUTHENTICATION_REJECTED } from './authRejection.ts';
import { CanceledTailQuarantine } from './canceledTailQuarantine.ts';
import type { QueryFactory } from './claudeQuery.ts';
import { cancelExactTurn, type ExactCancellationHost } from './exactCancellation.ts';
import { GenerationLifecycle } from './generationLifecycle.ts';
import { generationHooks, generationQueryOptions } from './generationQueryOptions.ts';
import { LiveSessionSettings } from './liveSessionSettings.ts';
import { MessageRouter, type MessageRouterHost } from './messageRouter.ts';
import { buildPromptContent } from './promptContent.ts';
import { PromptQueue } from './promptQueue.ts';
import type { TurnIdentityResolver } from './providerTurnIdentity.ts';
import { ProviderTurnIdentityBarrier } from './providerTurnIdentity.ts';
import { describeQueryEnd, queryEndTerminal } from './queryFailure.ts';
import { type InterruptOutcome, QueryGeneration } from './queryGeneration.ts';
import { isTerminalConnectionError, terminalForResult } from './resultSettlement.ts';
import { ResultWatchdog } from './resultWatchdog.ts';
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
import { SessionGoals } from './sessionGoals.ts';
import { SettledSessionRefresh } from './settledSessionRefresh.ts';
import { StreamStallGuard } from './streamStallGuard.ts';
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
  /** Defaults to the `TUTTI_CLAUDE_AUTH_REFRESH_DEBUG` switch of `processEnv`. */
  authRefreshDebug?: AuthRefreshDebug;
  timers?: Partial<RuntimeTimers>;
}

const SESSION_ENDED = 'Claude SDK session ended';
const CONNECTION_LOST = 'Claude SDK connection lost';
const SESSION_CLOSED = 'Claude SDK session closed';
const QUERY_CLOSED = 'Claude SDK query is closed';
const GUIDANCE_SUPERSEDED = 'Claude SDK guidance was superseded by a cancel of its turn';
/** What a pending approval and a running tool call end with when their turn is canceled. */

/**
 * One Agent Session on the real SDK. It owns the Turn queue and coordinates the collaborators around it:
 * the generation lifecycle (which Query serves the turns), the router and identity barrier (what may be
 * published and when), the projector (what it looks like), the interactions (what the user must answer),
 * the watchdog (a Turn always ends), the live settings, the Goals and the settled refresh.
 */
export class SessionRuntime implements SidecarSession, MessageRouterHost {
  readonly agentSessionId: string;
  readonly emit: EmitEvent;
  readonly turns: TurnLifecycle;
  readonly projector: StreamProjector;
  readonly #queryFactory: QueryFactory;
  readonly #resolveStartOptions: StartOptionsResolver;
  readonly #providerTurnDiagnostics: ProviderTurnDiagnostics;
  readonly #authRefreshDebug: AuthRefreshDebug;
  readonly #payload: StartPayload;
  readonly #processEnv: NodeJS.ProcessEnv;
  readonly #cwd: string;
  readonly #providerSessionId: string;
  readonly #barrier: ProviderTurnIdentityBarrier;
  readonly #router: MessageRouter;
  readonly #interactions = new InteractiveRegistry();
  readonly #permissionLedger = new SessionPermissionLedger();
  readonly #watchdog: ResultWatchdog;
  readonly #stallGuard: StreamStallGuard;
  readonly #background: BackgroundTaskLifecycle;
  readonly #generations: GenerationLifecycle;
  readonly #settings: LiveSessionSettings;
  readonly #goals: SessionGoals;
  readonly #settledRefresh: SettledSessionRefresh;
  readonly #identityWarnings = new Map<string, () => void>();
  readonly #assistantErrors = new Map<string, string>();
  /** A cancel retired the last Query: the next one must drop the canceled run's tail (reference §3.1). */
  #quarantineNextGeneration = false;
  /** Whether Claude Code has a transcript for the session, so a new Query must `resume` it. */
  #resumable: boolean;
  /** Credential values of the session's environment, cut out of the error texts it publishes. */
  #credentials: string[];
  #lastAssistantUuid: string | undefined;
  #startOptions: ResolvedStartOptions | undefined;
  #guidanceInterruptPending = false;
  /** The guidance waiting for its interrupt to be acknowledged, which a cancel of its turn supersedes. */
  #pendingGuidance: { readonly turnId: string; readonly superseded: AbortController } | undefined;
  /** Turn ids of the cancels that arrived and have not run yet (`''`: the active turn). */
  readonly #cancelsQueued: string[] = [];
  readonly #timers: RuntimeTimers;
  #closed = false;

  constructor(options: SessionRuntimeOptions) {
    const { payload } = options;
    const timers = { ...DEFAULT_RUNTIME_TIMERS, ...options.timers };
    this.#timers = timers;
    this.agentSessionId = payload.agentSessionId;
    this.#processEnv = options.processEnv ?? process.env;
    this.#credentials = credentialValues({ ...this.#processEnv, ...payload.env });
    this.emit = redactingEmit(options.emit, () => this.#credentials);
    this.#queryFactory = options.queryFactory ?? sdkQueryFactory;
    this.#resolveStartOptions = options.resolveStartOptions ?? resolveStartOptionsFromConfig;
    this.#providerTurnDiagnostics = options.providerTurnDiagnostics ?? new ProviderTurnDiagnostics();
    this.#payload = payload;
    this.#authRefreshDebug = options.authRefreshDebug ?? AuthRefreshDebug.fromEnv(this.#processEnv);
    this.#cwd = payload.cwd || process.cwd();
    const restored = readResumeCursor(payload.resumeCursor);
    this.#providerSessionId = restored.resume ?? (payload.providerSessionId || randomUUID());
    this.#resumable = restored.resume !== undefined || payload.restore === true;
    this.#lastAssistantUuid = restored.resumeSessionAt;
    this.#settings = new LiveSessionSettings(payload.settings?.model);
    this.turns = new TurnLifecycle(this.emit, {
      onIdentityBound: (turn) => this.#disarmIdentityWarning(turn),
      beforeTerminal: (turn, terminal) => this.#closeOpenToolCalls(turn, terminal),
      onSettled: (turn) => this.#afterSettle(turn),
    });
    this.turns.settledCount = restored.turnCount;
    this.projector = createStreamProjector({ emit: this.emit });
    this.#barrier = new ProviderTurnIdentityBarrier({
      resolve: options.resolveTurnIdentity ?? resolveTurnIdentityFromTranscript,
      retry: timers.identityRetry,
      diagnostics: this.#providerTurnDiagnostics,
      bind: (turn, identity) => {
        if (this.turns.bindIdentity(turn, identity.providerTurnId) === 'conflict') return false;
        this.turns.checkpoint(turn, identity.providerCheckpointMessageId);
        return true;
      },
    });
    this.#router = new MessageRouter(this);
    this.#generations = new GenerationLifecycle({
      create: (id) => this.#createGeneration(id),
      idleTtlMs: timers.idleQueryTtlMs,
      closeDrainTimeoutMs: timers.closeDrainTimeoutMs,
      turnsIdle: () => this.turns.idle,
      hasBackgroundWork: () => this.#background.hasBackgroundWork(),
    });
    this.#goals = new SessionGoals({
      emit: this.emit,
      dispatch: (execPayload, command) => this.#dispatchExec(execPayload, command),
      activeTurn: () => this.turns.active,
      restored: this.#resumable,
      liveChild: () => {
        const generation = this.#generations.current;
        return generation && { configDir: generation.claudeConfigDir, cwd: this.#cwd };
      },
    });
    this.#settledRefresh = new SettledSessionRefresh({
      emit: this.emit,
      quietMs: timers.settledRefreshQuietMs,
      readSessionTitle: options.readSessionTitle ?? readSessionTitleFromTranscript,
      session: () => ({ providerSessionId: this.#providerSessionId, cwd: this.#cwd }),
    });
    this.#watchdog = new ResultWatchdog(timers.resultTimeoutMs, () => this.#onResultTimeout(timers.resultTimeoutMs));
    this.#stallGuard = new StreamStallGuard(
      {
        emit: this.emit,
        streamingTurn: () => this.turns.outputTarget(),
        currentGeneration: () => this.#generations.current,
        detach: (generation, terminal) => this.#detach(generation, { active: terminal, queued: SESSION_ENDED }),
      },
      {
        warningMs: timers.streamStallWarningMs,
        budgetMs: timers.streamStallBudgetMs,
        interruptTimeoutMs: timers.interruptTimeoutMs,
      },
    );
    this.#background = new BackgroundTaskLifecycle({
      emit: this.emit,
      startTimeoutMs: timers.continuationStartTimeoutMs,
      turns: {
        // The turn root output goes to: the active one, or the dispatched one Claude Code is about to start.
        activeTurn: () => this.turns.outputTarget(),
        reserveSyntheticTurn: () => this.turns.openSynthetic(this.#generations.current?.id).turnId,
        completeTurn: (turnId, stopReason, syntheticTimeout) => {
          const turn = this.turns.find(turnId);
          if (turn) this.turns.settle(turn, { type: 'turn_completed', stopReason, syntheticTimeout });
        },
        interrupt: () => this.#generations.abandonContinuation(),
      },
    });
  }

  get providerSessionId(): string {
    return this.#providerSessionId;
  }

  async start(): Promise<StartResult> {
    this.#debugAuth('session_starting');
    try {
      const result = await this.#start();
      this.#debugAuth('session_started');
      return result;
    } catch (error) {
      this.#debugAuth('session_start_failed', { error });
      throw error;
    }
  }

  async #start(): Promise<StartResult> {
    const [startOptions] = await Promise.all([
      this.#resolveStartOptions(this.#payload, { processEnv: this.#processEnv }),
      // The SDK is loaded on first use (config/claudeAgentSdk.ts); a Query is only created after start.
      this.#queryFactory === sdkQueryFactory ? loadClaudeAgentSdk() : undefined,
    ]);
    this.#startOptions = startOptions;
    this.#settings.started(startOptions);
    const generation = this.#generations.ensure();
    try {
      const initialization = await generation.query.initializationResult?.();
      this.#settings.replaceCatalogue(initialization?.models);
      // A resumed session's model was checked when it was chosen.
      if (!this.#resumable) await this.#settings.verifyStartModel(generation.query);
      // `system/init` names the commands only at a turn's start; this gives them, described, before the first.
      this.projector.announceCommands(initialization?.commands, this.#providerSessionId);
    } catch (error) {
      this.#detach(generation, { active: describeQueryEnd(error), queued: SESSION_ENDED });
      throw error;
    }
    // Only rows appended from now on count: what a restored transcript already holds was reported before.
    this.#goals.follow({ configDir: generation.claudeConfigDir, cwd: this.#cwd, sessionId: this.#providerSessionId });
    this.emit('session_started', this.#sessionSnapshot());
    this.#generations.armIdle();
    return { providerSessionId: this.#providerSessionId };
  }

  async exec(payload: ExecPayload): Promise<void> {
    if (this.#closed) {
      this.emit('turn_failed', { turnId: payload.turnId, error: QUERY_CLOSED });
      return;
    }
    const { turnId } = payload;
    if (this.turns.find(turnId) || this.#goals.has(turnId)) throw new Error(`turn ${turnId} is already running`);
    const goal = goalCommandOf(payload);
    if (goal) {
      this.#goals.enqueue(payload, goal);
      return;
    }
    this.#dispatchExec(payload, undefined);
  }

  #dispatchExec(payload: ExecPayload, goal: GoalCommand | undefined): void {
    this.#generations.disarmIdle();
    const turn = this.turns.enqueue({
      turnId: payload.turnId,
      correlationId: payload.promptCorrelationId || randomUUID(),
      turnOrigin: payload.turnOrigin || undefined,
      goal,
    });
    // The ok answers the request at once; the prompt is handed to Claude Code right after it.
    setImmediate(() => this.#dispatch(turn, payload));
  }

  /**
   * Interrupts the active turn (bounded like a cancel's interrupt) and queues the guided prompt in the same
   * Query. A cancel of that turn arriving meanwhile ends the wait at once, so it never waits behind it.
   */
  async guide(payload: GuidePayload): Promise<void> {
    const turn = this.turns.active;
    const generation = this.#generations.current;
    if (!turn || !generation || generation.revoked) throw new Error('Claude SDK guidance requires an active turn');
    if (this.#cancelsQueued.some((turnId) => turnId === '' || turnId === turn.turnId)) {
      throw new SidecarError(GUIDANCE_SUPERSEDED);
    }
    const budgetMs = payload.interruptTimeoutMs ?? this.#timers.interruptTimeoutMs;
    const superseded = new AbortController();
    this.#pendingGuidance = { turnId: turn.turnId, superseded };
    this.#guidanceInterruptPending = true;
    let outcome: InterruptOutcome;
    try {
      outcome = await generation.interruptWithin(budgetMs, superseded.signal);
    } finally {
      this.#pendingGuidance = undefined;
    }
    if (outcome.kind !== 'fulfilled') {
      // The turn goes on as it was; an interrupt Claude Code acts on later ends it like any interruption.
      this.#guidanceInterruptPending = false;
      if (outcome.kind === 'rejected') throw outcome.error;
      throw new SidecarError(
        outcome.kind === 'aborted'
          ? GUIDANCE_SUPERSEDED
          : `Claude SDK guidance interrupt was not acknowledged within ${budgetMs}ms`,
      );
    }
    this.emit('guidance_interrupted', { turnId: turn.turnId });
    this.#settledRefresh.onPrompt();
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

  /**
   * A cancel arrived and waits its turn in this session's request order: a guidance of its turn waiting
   * for its interrupt gives way at once, and one not started yet gives way when it starts.
   */
  cancelRequested(payload: CancelPayload): void {
    this.#cancelsQueued.push(payload.turnId);
    const guidance = this.#pendingGuidance;
    if (guidance && (payload.turnId === '' || payload.turnId === guidance.turnId)) guidance.superseded.abort();
  }

  cancel(payload: CancelPayload, context: RequestContext): Promise<CancelResult> {
    const queued = this.#cancelsQueued.indexOf(payload.turnId);
    if (queued >= 0) this.#cancelsQueued.splice(queued, 1);
    const host: ExactCancellationHost = {
      agentSessionId: this.agentSessionId,
      providerSessionId: this.#providerSessionId,
      closed: this.#closed,
      turns: this.turns,
      generations: this.#generations,
      withdrawQueuedGoal: (turnId) => this.#goals.cancelQueued(turnId),
      fenceCanceledGeneration: () => {
        this.#quarantineNextGeneration = true;
        this.#background.onCancel();
        this.#barrier.abort();
        this.#interactions.rejectAll(TOOL_USE_ABORTED);
        this.#watchdog.disarm();
        this.#stallGuard.disarm();
      },
    };
    return cancelExactTurn(host, payload, context);
  }

  async stopTask(payload: StopTaskPayload): Promise<StopTaskResult> {
    const taskId = this.#background.runningTask(payload.taskId, payload.toolCallId);
    const query = this.#generations.current?.query;
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
    const generation = this.#generations.current;
    await this.#settings.apply(payload, generation?.query, () => {
      if (generation) this.#generations.retireIfIdle(generation);
    });
    this.emit('session_state', this.#sessionSnapshot());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#debugAuth('session_closed');
    this.#settledRefresh.stop();
    for (const turnId of this.#goals.close()) this.emit('turn_failed', { turnId, error: SESSION_CLOSED });
    this.#background.reset();
    this.#barrier.abort();
    this.#interactions.rejectAll(SESSION_CLOSED);
    this.#watchdog.disarm();
    this.#stallGuard.disarm();
    for (const cancelWarning of this.#identityWarnings.values()) cancelWarning();
    this.#identityWarnings.clear();
    try {
      await this.#generations.close();
    } finally {
      for (const turn of this.turns.unsettled()) {
        this.turns.settle(turn, { type: 'turn_failed', error: SESSION_CLOSED });
      }
      // A child retired or detached just before must not outlive the session.
      await this.#generations.stopped();
    }
  }

  // --- MessageRouterHost -------------------------------------------------------------------------------

  awaitIdentity(turn: RuntimeTurn, phase: DispatchPhase, generation: QueryGeneration): Promise<void> {
    return this.#barrier.await(turn, phase, this.#identityContext(generation));
  }

  settleRootResult(result: SDKResultMessage, turn: RuntimeTurn, generation: QueryGeneration): void {
    // A result came: whatever follows (a retained turn's background work) is not a missing result.
    this.#watchdog.disarm();
    this.projector.project(result, turn.turnId);
    const guided = this.#guidanceInterruptPending;
    this.#guidanceInterruptPending = false;
    const stalled = this.#stallGuard.terminalFor(turn, result);
    // The interrupt that made room for guidance ends in this result; the Turn goes on with the guidance.
    if (guided && !stalled && result.subtype === 'error_during_execution') return;
    const terminal = stalled ?? terminalForResult(result, this.#assistantErrors.get(turn.turnId));
    const taskNotification = asRecord(result.origin)?.kind === 'task-notification';
    const succeeded = terminal.type === 'turn_completed';
    if (succeeded && !taskNotification) this.projector.completeBackgroundLaunches(turn.turnId);
    const decision = this.#background.onRootResult({ succeeded, taskNotification });
    if (decision === 'settle') {
      this.turns.settle(turn, terminal);
      if (isTerminalConnectionError(result))
        this.#detach(generation, { active: CONNECTION_LOST, queued: CONNECTION_LOST });
      else this.#background.onRootSettled();
    }
    this.#settledRefresh.afterResult({ result, turnId: turn.turnId, generation });
  }

  rejectAuthentication(turn: RuntimeTurn, generation: QueryGeneration): void {
    this.#debugAuth('authentication_rejected', { generationId: generation.id });
    this.turns.settle(turn, AUTHENTICATION_REJECTED);
    this.#detach(generation, { active: SESSION_ENDED, queued: SESSION_ENDED });
  }

  observeTurnOutput(message: SDKMessage, turn: RuntimeTurn): void {
    if (message.type !== 'assistant' || !isRootMessage(message)) return;
    if (message.error) this.#assistantErrors.set(turn.turnId, message.error);
    if (message.uuid === this.#lastAssistantUuid) return;
    // A host that loses the sidecar mid-turn resumes from the last assistant message it was told about.
    this.#lastAssistantUuid = message.uuid;
    this.emit('session_state', this.#sessionSnapshot());
  }

  continuationAwaited(): boolean {
    return this.#background.awaitingContinuation;
  }

  observeSession(message: SDKMessage): void {
    if (this.turns.active) this.#watchdog.observe(message);
    if (this.turns.outputTarget()) this.#stallGuard.observe(message);
    if (message.type !== 'result' || !isRootMessage(message)) this.#background.observe(message);
    if (systemSubtype(message) !== 'init') return;
    const model = stringField(message as Record<string, unknown>, 'model');
    if (model && this.#settings.observeEffectiveModel(model)) this.emit('session_state', this.#sessionSnapshot());
  }

  onUserPromptStarted(): void {
    this.#background.onUserPromptStarted();
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
    return this.#goals.observe(message);
  }

  drainGoalEvidence(): Promise<void> | undefined {
    return this.#goals.drainEvidence();
  }

  // --- generations and dispatch ------------------------------------------------------------------------

  #createGeneration(id: number): QueryGeneration {
    const startOptions = this.#startOptions;
    if (!startOptions) throw new Error('Claude SDK session is not started');
    const env = buildQueryEnv({ processEnv: this.#processEnv, cwd: this.#cwd, payloadEnv: this.#payload.env ?? {} });
    // The settings files may add credentials; errors of this generation on are redacted of them too.
    this.#credentials = credentialValues(env);
    this.#debugAuth('query_created', { generationId: id, env });
    const prompts = new PromptQueue();
    let generation: QueryGeneration | undefined;
    const isLive = (): boolean => this.#generations.isCurrent(generation);
    const options = generationQueryOptions({
      startOptions,
      settings: this.#settings.createTime(),
      cwd: this.#cwd,
      env,
      executable: resolveClaudeExecutable(env),
      providerSessionId: this.#providerSessionId,
      resumable: this.#resumable,
      canUseTool: createCanUseTool({
        registry: this.#interactions,
        ledger: this.#permissionLedger,
        emit: this.emit,
        resolveTurnId: () => this.turns.outputTarget()?.turnId ?? this.#background.turnForRequest(),
        awaitTurnIdentity: async (turnId, phase, signal) => {
          const turn = this.turns.find(turnId);
          if (!turn || !generation) throw new Error(`turn ${turnId} is not running`);
          await this.#barrier.await(turn, phase, this.#identityContext(generation), signal);
          this.turns.activate(turn);
        },
        getPermissionMode: () => this.#settings.permissionMode,
        canBypassPermissions: startOptions.canBypassPermissions,
        isGenerationActive: isLive,
      }),
      hooks: generationHooks(isLive, {
        postToolUse: (input, toolUseId) => {
          const turn = this.turns.active;
          if (turn) this.projector.postToolUse(input, toolUseId, turn.turnId);
        },
        sessionStart: (input) => this.#goals.followTranscript(input.transcript_path),
      }),
    });
    const query = this.#queryFactory({ prompt: prompts, options });
    generation = new QueryGeneration({ id, query, prompts, claudeConfigDir: env.CLAUDE_CONFIG_DIR || undefined });
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

  #identityContext(generation: QueryGeneration) {
    return {
      providerSessionId: this.#providerSessionId,
      cwd: this.#cwd,
      claudeConfigDir: generation.claudeConfigDir,
      generationId: generation.id,
    };
  }

  #isCurrentPromptEcho(message: SDKMessage): boolean {
    const echo = rootPromptEcho(message);
    return echo !== undefined && this.turns.awaitingCorrelation(echo.correlationId) !== undefined;
  }

  #dispatch(turn: RuntimeTurn, payload: ExecPayload): void {
    if (turn.settled || turn.canceling) return;
    try {
      if (this.#closed) throw new Error(QUERY_CLOSED);
      const generation = this.#generations.ensure();
      const content = buildPromptContent({
        prompt: payload.prompt,
        content: payload.content,
        hostContext: payload.hostContext,
      });
      if (content.length === 0) throw new Error('Claude SDK prompt is empty');
      turn.generationId = generation.id;
      turn.phase = 'dispatched';
      this.#settledRefresh.onPrompt();
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

  #onGenerationEnded(generation: QueryGeneration, failure: unknown): void {
    if (this.#generations.current !== generation) return;
    this.#debugAuth('query_ended', {
      generationId: generation.id,
      ...(failure === undefined ? {} : { error: failure }),
    });
    for (const turn of this.turns.unsettled()) {
      if (turn.generationId !== generation.id || turn.providerTurnId || turn.synthetic) continue;
      if (failure === undefined) this.#providerTurnDiagnostics.queryEndedBeforeIdentity(this.#turnSnapshot(turn));
      else this.#providerTurnDiagnostics.queryConsumptionFailedBeforeIdentity(this.#turnSnapshot(turn), failure);
    }
    this.#detach(generation, { active: queryEndTerminal(failure), queued: SESSION_ENDED });
  }

  #onResultTimeout(timeoutMs: number): void {
    const generation = this.#generations.current;
    if (!generation || !this.turns.active) return;
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
  #detach(generation: QueryGeneration, errors: { active: string | TurnTerminal; queued: string }): void {
    this.#generations.release(generation);
    this.#background.reset();
    this.#barrier.abort();
    this.#watchdog.disarm();
    this.#stallGuard.disarm();
    this.#interactions.rejectAll(SESSION_ENDED);
    this.#generations.discard(generation);
    let first = true;
    for (const turn of this.turns.unsettled()) {
      if (turn.generationId !== generation.id) continue;
      const error = first ? errors.active : errors.queued;
      first = false;
      if (turn.canceling) continue;
      this.turns.settle(turn, typeof error === 'string' ? { type: 'turn_failed', error } : error);
    }
  }

  // --- turn bookkeeping ----------------------------------------------------------------------------------

  #disarmIdentityWarning(turn: RuntimeTurn): void {
    this.#identityWarnings.get(turn.turnId)?.();
    this.#identityWarnings.delete(turn.turnId);
  }

  #debugAuth(stage: AuthRefreshStage, details: Omit<AuthRefreshRecord, 'agentSessionId' | 'providerSessionId'> = {}) {
    this.#authRefreshDebug.record(stage, {
      agentSessionId: this.agentSessionId,
      providerSessionId: this.#providerSessionId,
      ...details,
    });
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
    this.#goals.turnSettled(turn);
    if (!this.turns.active) {
      this.#watchdog.disarm();
      this.#stallGuard.disarm();
    }
    if (this.turns.idle && !this.#closed) this.#generations.armIdle();
    this.emit('session_state', this.#sessionSnapshot());
  }

  #sessionSnapshot() {
    return {
      providerSessionId: this.#providerSessionId,
      ...this.#settings.reported(),
      resumeCursor: resumeCursor(this.#providerSessionId, this.#lastAssistantUuid, this.turns.settledCount),
    };
  }
}
