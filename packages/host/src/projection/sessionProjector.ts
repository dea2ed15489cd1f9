import {
  type AgentTask,
  type BackgroundTask,
  type ContentBlock,
  hostLimits,
  type InteractionAnswer,
  type InteractionKind,
  type interactionResolutions,
  type PatchSettingsBody,
  type SdkTodo,
  type ToolResultBlock,
  type ToolUseBlock,
  type TurnError,
  type TurnOutcome,
  type TurnUsage,
} from '@outrigger/host-api';
import type { CancelDisposition, DelegatedTask, SidecarEvent, ToolCall } from '@outrigger/protocol';
import type { ProjectionStateRecords, WriteUnit } from '../store/hostStore.ts';
import type {
  AttachmentRecord,
  InteractionRecord,
  MessageRecord,
  SessionRecord,
  TurnInputBlock,
  TurnRecord,
} from '../store/records.ts';
import { ProjectionDraft, type ProjectorState, sourceKey } from './projectionDraft.ts';
import {
  backgroundOf,
  fileChangeOf,
  liveOutputOf,
  resultReplaces,
  structuredPatchOf,
  synthesizedResult,
  toolInputOf,
  toolResultFrom,
} from './toolRows.ts';
import { messageView, previewToolResult, queuedPrompt } from './views.ts';

/** A prompt as the runtime hands it over: text, extra blocks (images by attachment) and their bytes. */
export interface PromptInput {
  readonly prompt: string;
  readonly input: readonly TurnInputBlock[];
  readonly attachments: readonly AttachmentRecord[];
  readonly clientMessageId: string | null;
}

/** What one projection produced: the write unit to commit, and what the runtime must act on. */
export interface Projection {
  readonly unit: WriteUnit;
  /** Nothing to commit (a duplicate, an ignored event). */
  readonly empty: boolean;
  /** Turns this projection ended (their `done` is in the unit). */
  readonly endedTurnIds: readonly string[];
  /** A user turn broke the identity barrier (invariant 2): it is failed in the unit; the sidecar must stop it. */
  readonly identityViolationTurnId: string | undefined;
  /** Why an event was dropped although it named something (for the runtime's log; never content). */
  readonly dropped: string | undefined;
  readonly draft: ProjectionDraft;
}

export type SupersedeResolution = Exclude<(typeof interactionResolutions)[number], 'answered'>;

const terminalTurnStatuses: ReadonlySet<string> = new Set(['completed', 'failed', 'canceled', 'interrupted']);
/** Task statuses after which a delegated task no longer runs. */
const endedTaskStatuses: ReadonlySet<string> = new Set([
  'completed',
  'failed',
  'stopped',
  'killed',
  'canceled',
  'cancelled',
  'error',
]);
const permissionModes: ReadonlySet<string> = new Set(['default', 'acceptEdits', 'plan', 'bypassPermissions', 'auto']);

export const isTerminalTurn = (turn: Pick<TurnRecord, 'status'>): boolean => terminalTurnStatuses.has(turn.status);

const preview = (text: string): string => text.slice(0, hostLimits.toolResultPreviewChars);

/**
 * One session's projection, pure: sidecar events and the runtime's decisions in, whole rows and
 * events out (a `WriteUnit` per call), following docs/host-api.md's mapping and invariants 2, 3, 4,
 * 5 and 10. Every method returns a `Projection` without changing the projector; the caller commits
 * its unit and then calls `accept(projection)` (after a refused commit it builds a new projector from
 * the store). The state it holds is exactly what `ProjectionStateRecords` loads, so a projector
 * rebuilt after a restart continues where the old one stopped.
 */
export class SessionProjector {
  readonly #state: ProjectorState;

  constructor(records: ProjectionStateRecords) {
    this.#state = {
      session: records.session,
      turns: new Map(),
      messages: new Map(),
      messagesByTurn: new Map(),
      toolRows: new Map(),
      sourceRows: new Map(),
      interactions: new Map(),
      nextPosition: records.nextPosition,
      nextOrdinal: records.nextTurnOrdinal,
      hasTranscript: records.hasAcceptedTurn,
    };
    this.hydrate({ turns: records.turns, messages: records.messages, interactions: records.pendingInteractions });
  }

  /** A new session's projector (no rows yet besides the session). */
  static fresh(session: SessionRecord): SessionProjector {
    return new SessionProjector({
      session,
      turns: [],
      messages: [],
      pendingInteractions: [],
      lastSeq: 0,
      nextPosition: 0,
      nextTurnOrdinal: 0,
      hasAcceptedTurn: false,
    });
  }

  // ─── reads ───────────────────────────────────────────────────────────────────────────────────

  get session(): SessionRecord {
    return this.#state.session;
  }

  turn(turnId: string): TurnRecord | undefined {
    return this.#state.turns.get(turnId);
  }

  runningUserTurn(): TurnRecord | undefined {
    for (const turn of this.#state.turns.values()) if (turn.kind === 'user' && turn.status === 'running') return turn;
    return undefined;
  }

  liveTurns(): TurnRecord[] {
    return this.#sortedTurns().filter((turn) => turn.status === 'running');
  }

  queuedTurns(): TurnRecord[] {
    return this.#sortedTurns().filter((turn) => turn.status === 'queued');
  }

  hasTranscript(): boolean {
    return this.#state.hasTranscript;
  }

  hasToolRow(toolUseId: string): boolean {
    return this.#state.toolRows.has(toolUseId);
  }

  interaction(requestId: string): InteractionRecord | undefined {
    return this.#state.interactions.get(requestId);
  }

  /** Rows the store had that this projector let go of (an ended turn a late event names). */
  hydrate(records: {
    turns?: readonly TurnRecord[];
    messages?: readonly MessageRecord[];
    interactions?: readonly InteractionRecord[];
  }): void {
    const state = this.#state;
    for (const turn of records.turns ?? []) if (!state.turns.has(turn.id)) state.turns.set(turn.id, turn);
    for (const message of records.messages ?? []) {
      if (state.messages.has(message.id)) continue;
      state.messages.set(message.id, message);
      let ids = state.messagesByTurn.get(message.turnId);
      if (ids === undefined) {
        ids = new Set();
        state.messagesByTurn.set(message.turnId, ids);
      }
      ids.add(message.id);
      if (message.toolUseId !== null) state.toolRows.set(message.toolUseId, message.id);
      if (message.sourceMessageId !== null) {
        state.sourceRows.set(sourceKey(message.turnId, message.sourceMessageId), message.id);
      }
    }
    for (const interaction of records.interactions ?? []) {
      if (!state.interactions.has(interaction.requestId)) state.interactions.set(interaction.requestId, interaction);
    }
  }

  /**
   * After the projection's unit was committed: its rows become the state and what can no longer
   * change is let go. `{evict: false}` keeps everything (several projections folded ahead of one
   * commit must not let go of rows their commit has not stored yet); `evict()` then lets go.
   */
  accept(projection: Projection, options: { evict?: boolean } = {}): void {
    projection.draft.foldInto(this.#state);
    if (options.evict ?? true) this.evict();
  }

  // ─── sidecar events ──────────────────────────────────────────────────────────────────────────

  projectSidecarEvent(event: SidecarEvent, now: number): Projection {
    return this.#project(now, (d) => {
      switch (event.type) {
        case 'session_started':
        case 'session_state':
          return this.#sessionState(d, event.payload);
        case 'session_title_updated':
          return this.#agentTitle(d, event.payload.title);
        case 'usage_updated':
          return this.#usage(d, event.payload);
        case 'provider_turn_identity_resolved':
          return this.#identity(d, event.payload.turnId, event.payload.providerTurnId);
        case 'provider_turn_checkpoint':
          return this.#checkpoint(d, event.payload.turnId, event.payload.providerCheckpointMessageId);
        case 'turn_started':
          return this.#syntheticTurnStarted(d, event.payload.turnId);
        case 'assistant_delta':
        case 'thinking_delta':
          return this.#outputDelta(d, event.type === 'assistant_delta' ? 'text' : 'thinking', event.payload);
        case 'assistant_completed':
        case 'thinking_completed':
        case 'assistant_failed':
          return this.#outputDone(
            d,
            event.type === 'thinking_completed' ? 'thinking' : 'text',
            event.payload,
            event.type === 'assistant_failed',
          );
        case 'tool_started':
        case 'tool_updated':
          return this.#toolUse(d, event.payload);
        case 'tool_completed':
        case 'tool_failed':
          return this.#toolResult(d, event.payload, event.type === 'tool_failed');
        case 'task_started':
        case 'task_progress':
        case 'task_completed':
        case 'task_result_updated':
          return this.#agentTask(d, event.payload);
        case 'background_tasks_changed':
        case 'background_tasks_quiesced':
          if (event.payload.runningCount === 0) this.#clearBackground(d, 'the background work ended');
          return;
        case 'plan_updated':
          return this.#plan(d, event.payload.turnId, event.payload.entries);
        case 'approval_requested':
        case 'user_input_requested':
          return this.#interactionRequested(d, event.payload);
        case 'approval_resolved':
        case 'user_input_resolved': {
          const { requestId, action, optionId, payload } = event.payload;
          const interaction = d.interaction(requestId);
          if (interaction?.status === 'pending') this.#answer(d, interaction, { action, optionId, payload });
          return;
        }
        case 'compact_started':
        case 'compact_completed':
        case 'compact_failed':
          return this.#compaction(d, event.payload.turnId, event.payload.content, event.type === 'compact_started');
        case 'turn_completed':
          return this.#sidecarTerminal(d, event.payload.turnId, {
            status: 'completed',
            stopReason: event.payload.stopReason,
          });
        case 'turn_failed':
          return this.#sidecarTerminal(d, event.payload.turnId, {
            status: 'failed',
            error: {
              message: event.payload.error,
              code: event.payload.code ?? null,
              apiErrorStatus: event.payload.apiErrorStatus ?? null,
            },
          });
        case 'turn_canceled':
          return this.#sidecarTerminal(d, event.payload.turnId, {
            status: 'canceled',
            reason: event.payload.error ?? null,
          });
        case 'error': {
          const payload = event.payload as { error: string; code?: unknown; turnId?: unknown };
          d.emit({
            type: 'error',
            data: {
              session_id: d.sessionId,
              turnId: typeof payload.turnId === 'string' ? payload.turnId : null,
              code: typeof payload.code === 'string' ? payload.code : 'sidecar_error',
              message: payload.error,
            },
          });
          return;
        }
        default:
          return this.#unlisted(d, event as { type: string; payload: Record<string, unknown> });
      }
    });
  }

  // ─── the runtime's decisions ─────────────────────────────────────────────────────────────────

  /** A new user turn: running (`turn_started` with its prompt row) or `queued` (`queue`). */
  acceptTurn(turnId: string, prompt: PromptInput, queued: boolean, now: number): Projection {
    return this.#project(now, (d) => {
      const turn: TurnRecord = {
        id: turnId,
        sessionId: d.sessionId,
        ordinal: d.ordinal(),
        kind: 'user',
        status: queued ? 'queued' : 'running',
        prompt: prompt.prompt,
        input: prompt.input,
        clientMessageId: prompt.clientMessageId,
        providerTurnId: null,
        providerSessionId: null,
        checkpointMessageId: null,
        stopReason: null,
        error: null,
        cancelDisposition: null,
        usage: null,
        createdAt: now,
        startedAt: queued ? null : now,
        endedAt: null,
      };
      d.putTurn(turn);
      d.attachments.push(...prompt.attachments);
      if (queued) this.#emitQueue(d);
      else this.#startRows(d, turn, imageSizes(prompt.attachments));
      d.touch();
    });
  }

  /** The next queued prompt runs. `imageBytes`: the stored size of each of its attachments. */
  startQueuedTurn(turnId: string, imageBytes: ReadonlyMap<string, number>, now: number): Projection {
    return this.#project(now, (d) => {
      const turn = d.turn(turnId);
      if (turn === undefined || turn.status !== 'queued') {
        d.dropped = 'start of a turn that is not queued';
        return;
      }
      const started = { ...turn, status: 'running' as const, startedAt: now };
      d.putTurn(started);
      this.#startRows(d, started, imageBytes);
      this.#emitQueue(d);
      d.touch();
    });
  }

  /** A prompt steered into the running turn (`guide`): its own `user_message` row. */
  steer(turnId: string, prompt: PromptInput, now: number): Projection {
    return this.#project(now, (d) => {
      d.attachments.push(...prompt.attachments);
      const row = this.#userRow(d, turnId, prompt.prompt, prompt.input, imageSizes(prompt.attachments), {
        steer: true,
        clientMessageId: prompt.clientMessageId,
      });
      d.emit({ type: 'user_message', data: { session_id: d.sessionId, turnId, message: messageView(row) } });
      d.touch();
    });
  }

  /** A queued turn removed before it ran: `canceled` (`pre_accept`), `turn_canceled`, its own `done`. */
  cancelQueuedTurn(turnId: string, now: number): Projection {
    return this.#project(now, (d) => {
      const turn = d.turn(turnId);
      if (turn === undefined || turn.status !== 'queued') return;
      this.#endTurn(d, turn, { status: 'canceled', disposition: 'pre_accept', reason: null });
    });
  }

  /** A turn (queued or running) the host ends itself: open calls get results, `result`, `done`. */
  failTurn(turnId: string, error: TurnError, now: number): Projection {
    return this.#project(now, (d) => {
      const turn = d.turn(turnId);
      if (turn !== undefined) this.#endTurn(d, turn, { status: 'failed', error });
    });
  }

  /** The sidecar died: every running turn fails with `error`, pending interactions and background work end. */
  sidecarExited(error: TurnError, now: number): Projection {
    return this.#project(now, (d) => this.#endEverything(d, 'sidecar_exited', { status: 'failed', error }));
  }

  /** Invariant 8: what a previous run left running is `interrupted` (`host_restarted`), pending work superseded. */
  recoverAfterRestart(now: number): Projection {
    return this.#project(now, (d) =>
      this.#endEverything(d, 'host_restarted', {
        status: 'interrupted',
        error: { message: 'the host restarted while the turn ran', code: 'host_restarted', apiErrorStatus: null },
      }),
    );
  }

  /** The answer reached the agent; recorded once (the sidecar's own `*_resolved` later changes nothing). */
  interactionAnswered(requestId: string, answer: InteractionAnswer, now: number): Projection {
    return this.#project(now, (d) => {
      const interaction = d.interaction(requestId);
      if (interaction?.status === 'pending') this.#answer(d, interaction, answer);
    });
  }

  interactionSuperseded(requestId: string, resolution: SupersedeResolution, now: number): Projection {
    return this.#project(now, (d) => {
      const interaction = d.interaction(requestId);
      if (interaction?.status === 'pending') this.#supersede(d, interaction, resolution);
    });
  }

  /** A `provider_active` cancel answer names the provider turn of a turn whose identity event was never applied. */
  bindTurn(turnId: string, providerTurnId: string, now: number): Projection {
    return this.#project(now, (d) => {
      const turn = d.turn(turnId);
      if (turn === undefined || turn.providerTurnId !== null) return;
      d.putTurn({ ...turn, providerTurnId, providerSessionId: d.session.providerSessionId });
      d.hasTranscript = true;
    });
  }

  /** The user's title wins over the agent's from now on. */
  rename(title: string, now: number): Projection {
    return this.#project(now, (d) => {
      if (d.session.title === title && d.session.titleSource === 'user') return;
      d.patchSession({ title, titleSource: 'user' }, true);
      d.emit({ type: 'title', data: { session_id: d.sessionId, title } });
    });
  }

  changeSettings(patch: PatchSettingsBody, now: number): Projection {
    return this.#project(now, (d) => this.#applySettings(d, patch));
  }

  close(now: number): Projection {
    return this.#project(now, (d) => {
      if (!d.session.closed) d.patchSession({ closed: true }, true);
    });
  }

  toolTimedOut(turnId: string, toolUseId: string, toolName: string, elapsedSeconds: number, now: number): Projection {
    return this.#project(now, (d) => {
      d.emit({
        type: 'tool_timeout',
        data: { session_id: d.sessionId, turnId, tool_use_id: toolUseId, toolName, elapsedSeconds },
      });
    });
  }

  /**
   * A new session's first unit: its row, `status` and the host's `session`; for a fork also the copy
   * of the source's transcript through `throughTurnId` and the copied turns rebound to the child.
   */
  static createUnit(
    session: SessionRecord,
    fork?: { readonly throughTurnId: string; readonly reboundTurns: readonly TurnRecord[] },
  ): Projection {
    const projector = SessionProjector.fresh(session);
    return projector.#project(session.createdAt, (d) => {
      d.patchSession({}, true);
      if (fork !== undefined && session.forkedFrom !== null) {
        d.copyTranscript = {
          fromSessionId: session.forkedFrom.sessionId,
          toSessionId: session.id,
          throughTurnId: fork.throughTurnId,
        };
        for (const turn of fork.reboundTurns) d.putTurn({ ...turn, sessionId: session.id });
      }
      d.emit({
        type: 'status',
        data: {
          session_id: d.sessionId,
          status: session.status,
          closed: session.closed,
          needsInputCount: session.needsInputCount,
          runningTurnId: session.runningTurnId,
          lastError: session.lastError,
        },
      });
    });
  }

  // ─── internals ───────────────────────────────────────────────────────────────────────────────

  #project(now: number, build: (draft: ProjectionDraft) => void): Projection {
    const d = new ProjectionDraft(this.#state, now);
    build(d);
    d.settleStatus();
    return {
      unit: d.toUnit(),
      empty: d.isEmpty,
      endedTurnIds: d.endedTurnIds,
      identityViolationTurnId: d.identityViolationTurnId,
      dropped: d.dropped,
      draft: d,
    };
  }

  #sortedTurns(): TurnRecord[] {
    return [...this.#state.turns.values()].sort((a, b) => a.ordinal - b.ordinal);
  }

  /**
   * The turn an output event belongs to, when its output may be stored. Invariant 2: a user turn's
   * output before its identity is committed fails the turn (fail-closed) and nothing of it is kept.
   * Output of an ended turn (subagent work under a done root turn) is kept under it; the turn stays ended.
   */
  #outputTurn(d: ProjectionDraft, turnId: string): TurnRecord | undefined {
    const turn = d.turn(turnId);
    if (turn === undefined) {
      d.dropped = 'output of an unknown turn';
      return undefined;
    }
    if (turn.kind === 'user' && turn.providerTurnId === null) {
      if (!isTerminalTurn(turn)) this.#violate(d, turn, 'output arrived before the turn was accepted');
      else d.dropped = 'output of a turn that was never accepted';
      return undefined;
    }
    return turn;
  }

  #violate(d: ProjectionDraft, turn: TurnRecord, why: string): void {
    d.identityViolationTurnId = turn.id;
    this.#endTurn(d, turn, {
      status: 'failed',
      error: { message: `identity violation: ${why}`, code: 'identity_violation', apiErrorStatus: null },
    });
  }

  #sessionState(
    d: ProjectionDraft,
    payload: {
      providerSessionId: string;
      model?: string;
      configOptions?: SessionRecord['configOptions'];
      resumeCursor: SessionRecord['resumeCursor'];
    },
  ): void {
    const session = d.session;
    const effectiveModel = payload.model ?? session.effectiveModel;
    const configOptions = payload.configOptions ?? session.configOptions;
    const same =
      session.providerSessionId === payload.providerSessionId &&
      session.effectiveModel === effectiveModel &&
      JSON.stringify(session.resumeCursor) === JSON.stringify(payload.resumeCursor) &&
      JSON.stringify(session.configOptions) === JSON.stringify(configOptions);
    if (same) return;
    d.patchSession({
      providerSessionId: payload.providerSessionId,
      resumeCursor: payload.resumeCursor,
      effectiveModel,
      configOptions,
    });
    if (effectiveModel !== session.effectiveModel) {
      d.emit({ type: 'settings', data: { session_id: d.sessionId, settings: d.session.settings, effectiveModel } });
    }
  }

  #agentTitle(d: ProjectionDraft, title: string): void {
    if (d.session.titleSource === 'user' || title.trim() === '' || title === d.session.title) return;
    d.patchSession({ title, titleSource: 'agent' }, true);
    d.emit({ type: 'title', data: { session_id: d.sessionId, title } });
  }

  #usage(
    d: ProjectionDraft,
    payload: {
      turnId: string;
      usage?: Record<string, unknown>;
      contextWindow?: SessionRecord['usage']['contextWindow'];
      totalCostUsd?: number;
    },
  ): void {
    const tokens = (key: string): number | null => {
      const value = payload.usage?.[key];
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    };
    const usage = { ...d.session.usage };
    const input = tokens('input_tokens');
    const output = tokens('output_tokens');
    if (input !== null) usage.inputTokens += input;
    if (output !== null) usage.outputTokens += output;
    if (payload.contextWindow !== undefined) usage.contextWindow = payload.contextWindow;
    const turn = d.turn(payload.turnId);
    if (turn !== undefined && (payload.usage !== undefined || payload.totalCostUsd !== undefined)) {
      const before: TurnUsage = turn.usage ?? {
        inputTokens: null,
        outputTokens: null,
        cacheReadInputTokens: null,
        cacheCreationInputTokens: null,
        costUsd: null,
      };
      const add = (sum: number | null, value: number | null) => (value === null ? sum : (sum ?? 0) + value);
      d.putTurn({
        ...turn,
        usage: {
          inputTokens: add(before.inputTokens, input),
          outputTokens: add(before.outputTokens, output),
          cacheReadInputTokens: add(before.cacheReadInputTokens, tokens('cache_read_input_tokens')),
          cacheCreationInputTokens: add(before.cacheCreationInputTokens, tokens('cache_creation_input_tokens')),
          costUsd: payload.totalCostUsd ?? before.costUsd,
        },
      });
      if (payload.totalCostUsd !== undefined) {
        usage.totalCostUsd = (usage.totalCostUsd ?? 0) - (before.costUsd ?? 0) + payload.totalCostUsd;
      }
    } else if (payload.totalCostUsd !== undefined) {
      usage.totalCostUsd = (usage.totalCostUsd ?? 0) + payload.totalCostUsd;
    }
    if (JSON.stringify(usage) === JSON.stringify(d.session.usage) && d.turns.size === 0) return;
    d.patchSession({ usage });
    d.emit({
      type: 'usage',
      data: { session_id: d.sessionId, turnId: turn === undefined ? null : turn.id, usage },
    });
  }

  #identity(d: ProjectionDraft, turnId: string, providerTurnId: string): void {
    const turn = d.turn(turnId);
    if (turn === undefined) {
      d.dropped = 'identity of an unknown turn';
      return;
    }
    if (turn.providerTurnId === providerTurnId) return;
    if (turn.providerTurnId !== null) {
      if (!isTerminalTurn(turn)) this.#violate(d, turn, 'the turn was bound to a second provider turn');
      else d.dropped = 'a second identity for an ended turn';
      return;
    }
    if (isTerminalTurn(turn)) {
      // Bound after it ended (a canceled turn's late echo): keep the binding, the turn stays ended.
      d.putTurn({ ...turn, providerTurnId, providerSessionId: d.session.providerSessionId });
      d.hasTranscript = true;
      return;
    }
    // The durable barrier: this unit commits the binding before any later event of the turn is applied.
    d.putTurn({ ...turn, providerTurnId, providerSessionId: d.session.providerSessionId });
    d.hasTranscript = true;
  }

  #checkpoint(d: ProjectionDraft, turnId: string, checkpointMessageId: string): void {
    const turn = d.turn(turnId);
    if (turn === undefined || turn.checkpointMessageId === checkpointMessageId) return;
    d.putTurn({ ...turn, checkpointMessageId });
  }

  #syntheticTurnStarted(d: ProjectionDraft, turnId: string): void {
    if (d.turn(turnId) !== undefined) return;
    d.putTurn({
      id: turnId,
      sessionId: d.sessionId,
      ordinal: d.ordinal(),
      kind: 'synthetic',
      status: 'running',
      prompt: null,
      input: [],
      clientMessageId: null,
      providerTurnId: null,
      providerSessionId: d.session.providerSessionId,
      checkpointMessageId: null,
      stopReason: null,
      error: null,
      cancelDisposition: null,
      usage: null,
      createdAt: d.now,
      startedAt: d.now,
      endedAt: null,
    });
    d.emit({ type: 'turn_started', data: { session_id: d.sessionId, turnId, kind: 'synthetic', message: null } });
    d.touch();
  }

  #outputDelta(
    d: ProjectionDraft,
    kind: 'text' | 'thinking',
    payload: { turnId: string; messageId: string; content: string; snapshot: string },
  ): void {
    const turn = this.#outputTurn(d, payload.turnId);
    if (turn === undefined) return;
    const existing = d.sourceRow(turn.id, payload.messageId);
    if (existing !== undefined && existing.status !== 'streaming') return;
    if (existing !== undefined && blockText(existing) === payload.snapshot) return;
    const row = this.#textRow(d, turn.id, payload.messageId, kind, payload.snapshot, 'streaming', existing);
    d.emit({
      type: kind,
      data: {
        session_id: d.sessionId,
        turnId: turn.id,
        messageId: row.id,
        delta: payload.content,
        final: false,
        interrupted: false,
      },
    });
    d.touch();
  }

  #outputDone(
    d: ProjectionDraft,
    kind: 'text' | 'thinking',
    payload: { turnId: string; messageId: string; content: string },
    failed: boolean,
  ): void {
    const turn = this.#outputTurn(d, payload.turnId);
    if (turn === undefined) return;
    const existing = d.sourceRow(turn.id, payload.messageId);
    const status = failed ? 'interrupted' : 'complete';
    if (existing !== undefined && existing.status === status && blockText(existing) === payload.content) return;
    const row = this.#textRow(d, turn.id, payload.messageId, kind, payload.content, status, existing);
    d.emit({
      type: kind,
      data: {
        session_id: d.sessionId,
        turnId: turn.id,
        messageId: row.id,
        delta: '',
        final: true,
        text: payload.content,
        interrupted: failed,
      },
    });
    d.touch();
  }

  #textRow(
    d: ProjectionDraft,
    turnId: string,
    sourceMessageId: string,
    kind: 'text' | 'thinking',
    text: string,
    status: MessageRecord['status'],
    existing: MessageRecord | undefined,
  ): MessageRecord {
    const content: ContentBlock[] = [kind === 'text' ? { type: 'text', text } : { type: 'thinking', thinking: text }];
    const row: MessageRecord =
      existing === undefined
        ? this.#newRow(d, turnId, 'assistant', content, status, { sourceMessageId })
        : { ...existing, content, status, updatedAt: d.now };
    d.putMessage(row);
    return row;
  }

  #newRow(
    d: ProjectionDraft,
    turnId: string,
    role: MessageRecord['role'],
    content: ContentBlock[],
    status: MessageRecord['status'],
    extra: Partial<MessageRecord> = {},
  ): MessageRecord {
    const position = d.position();
    return {
      sessionId: d.sessionId,
      id: `m-${position}`,
      turnId,
      position,
      role,
      status,
      content,
      noticeKind: null,
      steer: false,
      clientMessageId: null,
      toolUseId: null,
      sourceMessageId: null,
      createdAt: d.now,
      updatedAt: d.now,
      ...extra,
    };
  }

  #toolUse(d: ProjectionDraft, call: ToolCall): void {
    const turn = this.#outputTurn(d, call.turnId);
    if (turn === undefined) return;
    const existing = d.toolRow(call.toolCallId);
    const before = existing === undefined ? undefined : toolBlockOf(existing);
    const liveOutput = liveOutputOf(call);
    const tool = this.#toolBlock(d, call, before, {
      output: liveOutput === undefined ? (before?.output ?? null) : preview(liveOutput),
    });
    const changed = before === undefined || JSON.stringify(before) !== JSON.stringify(tool);
    if (!changed) return; // the same call again (a duplicate, or progress that shows nothing new)
    const row = this.#putToolRow(d, turn, call.toolCallId, tool, existing);
    d.emit({ type: 'tool_use', data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool } });
    if (liveOutput !== undefined && preview(liveOutput) !== before?.output) {
      d.emit({
        type: 'tool_output',
        data: {
          session_id: d.sessionId,
          turnId: row.turnId,
          messageId: row.id,
          tool_use_id: call.toolCallId,
          output: preview(liveOutput),
        },
      });
    }
    this.#trackBackgroundCommand(d, row, tool);
    d.touch();
  }

  #toolResult(d: ProjectionDraft, call: ToolCall, failed: boolean): void {
    const turn = this.#outputTurn(d, call.turnId);
    if (turn === undefined) return;
    const existing = d.toolRow(call.toolCallId);
    const before = existing === undefined ? undefined : toolBlockOf(existing);
    const stored = existing === undefined ? undefined : resultBlockOf(existing);
    const incoming = toolResultFrom(call, failed);
    const wins = resultReplaces(incoming.resultSource, stored?.resultSource);
    const winner = wins ? incoming : stored!;
    const status: ToolUseBlock['status'] = wins ? (failed ? 'failed' : 'completed') : (before?.status ?? 'completed');
    const tool = this.#toolBlock(d, call, before, { status, endedAt: before?.endedAt ?? d.now });
    if (
      before !== undefined &&
      stored !== undefined &&
      JSON.stringify(before) === JSON.stringify(tool) &&
      sameResult(stored, incoming)
    ) {
      return; // the same result again: nothing new to store or tell
    }
    const row = this.#putToolRow(d, turn, call.toolCallId, tool, existing, winner);
    if (before === undefined || JSON.stringify(before.fileChange) !== JSON.stringify(tool.fileChange)) {
      d.emit({ type: 'tool_use', data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool } });
    }
    // The log keeps every result, the transcript only the winner; clients apply the same rank.
    d.emit({
      type: 'tool_result',
      data: {
        session_id: d.sessionId,
        turnId: row.turnId,
        messageId: row.id,
        tool_use_id: call.toolCallId,
        status: tool.status === 'failed' ? 'failed' : 'completed',
        result: previewToolResult(incoming),
      },
    });
    this.#trackBackgroundCommand(d, row, tool);
    d.touch();
  }

  #toolBlock(
    d: ProjectionDraft,
    call: ToolCall,
    before: ToolUseBlock | undefined,
    overrides: Partial<ToolUseBlock>,
  ): ToolUseBlock {
    const input = toolInputOf(call);
    const patch = structuredPatchOf(call) ?? before?.fileChange?.structuredPatch;
    const fileChange = fileChangeOf(call.toolName, input);
    const parentToolUseId = call.metadata.parentToolUseId ?? before?.parentToolUseId ?? null;
    return {
      type: 'tool_use',
      id: call.toolCallId,
      name: call.toolName,
      callType: call.callType,
      input,
      status: before?.status ?? 'running',
      parentToolUseId,
      locations: call.locations.map((location) => location.path),
      fileChange:
        fileChange === null ? null : patch === undefined ? fileChange : { ...fileChange, structuredPatch: patch },
      agentTask: before?.agentTask ?? null,
      background: backgroundOf(call) ?? before?.background ?? null,
      output: before?.output ?? null,
      startedAt: before?.startedAt ?? d.now,
      endedAt: before?.endedAt ?? null,
      ...overrides,
    };
  }

  #putToolRow(
    d: ProjectionDraft,
    turn: TurnRecord,
    toolUseId: string,
    tool: ToolUseBlock,
    existing: MessageRecord | undefined,
    result: ToolResultBlock | undefined = existing === undefined ? undefined : resultBlockOf(existing),
  ): MessageRecord {
    const content: ContentBlock[] = result === undefined ? [tool] : [tool, result];
    const status: MessageRecord['status'] = tool.status === 'running' ? 'streaming' : 'complete';
    const row: MessageRecord =
      existing === undefined
        ? this.#newRow(d, turn.id, 'assistant', content, status, { toolUseId })
        : { ...existing, content, status, updatedAt: d.now };
    d.putMessage(row);
    return row;
  }

  /** A `run_in_background` command keeps running after its call completed: it is background work of the session. */
  #trackBackgroundCommand(d: ProjectionDraft, row: MessageRecord, tool: ToolUseBlock): void {
    if (tool.background === null || tool.callType !== 'command') return;
    const tasks = d.session.backgroundTasks;
    const index = tasks.findIndex((task) => task.tool_use_id === tool.id);
    const running = !endedTaskStatuses.has(tool.background.status);
    if (index === -1 && !running) return;
    const entry: BackgroundTask = {
      tool_use_id: tool.id,
      turnId: row.turnId,
      kind: 'command',
      taskId: tool.background.taskId,
      description: typeof tool.input.description === 'string' ? tool.input.description : null,
      status: tool.background.status,
      startedAt: index === -1 ? d.now : tasks[index]!.startedAt,
    };
    const next = running
      ? index === -1
        ? [...tasks, entry]
        : tasks.map((task, i) => (i === index ? entry : task))
      : tasks.filter((_, i) => i !== index);
    this.#setBackground(d, next, row.turnId);
  }

  #agentTask(d: ProjectionDraft, task: DelegatedTask): void {
    const turn = this.#outputTurn(d, task.turnId);
    if (turn === undefined) return;
    const toolUseId = task.toolCallId || task.parentToolUseId;
    const row = d.toolRow(toolUseId);
    if (row === undefined) {
      d.dropped = 'a delegated task without its Agent call';
      return;
    }
    const tool = toolBlockOf(row)!;
    const before = tool.agentTask;
    const next: AgentTask = {
      taskId: task.taskId ?? before?.taskId ?? null,
      agentId: task.agentId ?? before?.agentId ?? null,
      status: task.status,
      description: task.description ?? before?.description ?? null,
      summary: task.summary ?? before?.summary ?? null,
      lastToolName: task.lastToolName ?? before?.lastToolName ?? null,
      usage: isRecord(task.usage) ? task.usage : (before?.usage ?? null),
      updatedAt: d.now,
    };
    if (before !== null && JSON.stringify({ ...before, updatedAt: 0 }) === JSON.stringify({ ...next, updatedAt: 0 })) {
      return;
    }
    const updated: ToolUseBlock = { ...tool, agentTask: next };
    const stored: MessageRecord = {
      ...row,
      content: row.content.map((block) => (block.type === 'tool_use' ? updated : block)),
      updatedAt: d.now,
    };
    d.putMessage(stored);
    d.emit({
      type: 'agent_task',
      data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool_use_id: toolUseId, task: next },
    });
    const tasks = d.session.backgroundTasks;
    const index = tasks.findIndex((entry) => entry.tool_use_id === toolUseId);
    if (endedTaskStatuses.has(next.status)) {
      if (index !== -1)
        this.#setBackground(
          d,
          tasks.filter((_, i) => i !== index),
          row.turnId,
        );
      this.#closeSubagentCalls(d, toolUseId, `the delegated task ended (${next.status})`);
      return;
    }
    const entry: BackgroundTask = {
      tool_use_id: toolUseId,
      turnId: row.turnId,
      kind: 'agent',
      taskId: next.taskId,
      description: next.description,
      status: next.status,
      startedAt: index === -1 ? d.now : tasks[index]!.startedAt,
    };
    if (index !== -1 && JSON.stringify(tasks[index]) === JSON.stringify(entry)) return;
    this.#setBackground(
      d,
      index === -1 ? [...tasks, entry] : tasks.map((t, i) => (i === index ? entry : t)),
      row.turnId,
    );
  }

  #setBackground(d: ProjectionDraft, tasks: BackgroundTask[], turnId: string | null): void {
    d.patchSession({ backgroundTasks: tasks });
    d.emit({ type: 'background_tasks', data: { session_id: d.sessionId, turnId, tasks } });
  }

  /** No background work runs any more: every entry goes, and calls its subagents left open get their result. */
  #clearBackground(d: ProjectionDraft, reason: string): void {
    const tasks = d.session.backgroundTasks;
    if (tasks.length > 0) this.#setBackground(d, [], null);
    for (const row of [...d.allMessages()]) {
      const tool = toolBlockOf(row);
      if (
        tool !== undefined &&
        tool.status === 'running' &&
        isTerminalTurn(d.turn(row.turnId) ?? { status: 'completed' })
      ) {
        this.#synthesize(d, row, reason);
      }
    }
  }

  /** Open calls a subagent made under `agentToolUseId` end with a synthesized result. */
  #closeSubagentCalls(d: ProjectionDraft, agentToolUseId: string, reason: string): void {
    for (const row of [...d.allMessages()]) {
      const tool = toolBlockOf(row);
      if (tool?.status === 'running' && tool.parentToolUseId === agentToolUseId) this.#synthesize(d, row, reason);
    }
  }

  #synthesize(d: ProjectionDraft, row: MessageRecord, reason: string): void {
    const tool = toolBlockOf(row)!;
    const result = synthesizedResult(tool.id, reason);
    const ended: ToolUseBlock = { ...tool, status: 'failed', endedAt: tool.endedAt ?? d.now };
    const stored: MessageRecord = { ...row, content: [ended, result], status: 'complete', updatedAt: d.now };
    d.putMessage(stored);
    d.emit({
      type: 'tool_result',
      data: {
        session_id: d.sessionId,
        turnId: row.turnId,
        messageId: row.id,
        tool_use_id: tool.id,
        status: 'failed',
        result,
      },
    });
  }

  #plan(
    d: ProjectionDraft,
    turnId: string,
    entries: readonly { content: string; status: string; description?: string }[],
  ): void {
    const turn = this.#outputTurn(d, turnId);
    if (turn === undefined) return;
    const todos: SdkTodo[] = entries.map((entry) =>
      entry.description === undefined
        ? { content: entry.content, status: entry.status }
        : { content: entry.content, status: entry.status, activeForm: entry.description },
    );
    d.sdkTaskSync = { sessionId: d.sessionId, turnId: turn.id, todos, now: d.now };
    d.touch();
  }

  #interactionRequested(
    d: ProjectionDraft,
    payload: {
      turnId: string;
      requestId: string;
      toolCallId: string;
      toolName: string;
      agentId?: string;
      input: Record<string, unknown>;
      options: InteractionRecord['options'];
    },
  ): void {
    const turn = this.#outputTurn(d, payload.turnId);
    if (turn === undefined || d.interaction(payload.requestId) !== undefined) return;
    const kind: InteractionKind =
      payload.toolName === 'AskUserQuestion' ? 'question' : payload.toolName === 'ExitPlanMode' ? 'plan' : 'approval';
    const toolRow = d.toolRow(payload.toolCallId);
    const interaction: InteractionRecord = {
      requestId: payload.requestId,
      session_id: d.sessionId,
      turnId: turn.id,
      kind,
      toolName: payload.toolName,
      tool_use_id: payload.toolCallId,
      input: payload.input,
      options: payload.options,
      agentId: payload.agentId ?? null,
      parentToolUseId: (toolRow === undefined ? undefined : toolBlockOf(toolRow)?.parentToolUseId) ?? null,
      status: 'pending',
      answer: null,
      resolution: null,
      createdAt: d.now,
      resolvedAt: null,
    };
    d.putInteraction(interaction);
    d.emit({ type: 'permission_request', data: { session_id: d.sessionId, turnId: turn.id, interaction } });
    d.emitHost({ type: 'permission_request', data: { session_id: d.sessionId, interaction } });
    d.touch();
  }

  #answer(d: ProjectionDraft, interaction: InteractionRecord, answer: InteractionAnswer): void {
    const answered: InteractionRecord = {
      ...interaction,
      status: 'answered',
      answer,
      resolution: 'answered',
      resolvedAt: d.now,
    };
    d.putInteraction(answered);
    this.#emitResolved(d, answered);
    // ExitPlanMode: the chosen option is the permission mode the session continues in.
    if (interaction.kind === 'plan' && answer.action === 'allow' && permissionModes.has(answer.optionId)) {
      this.#applySettings(d, {
        permissionMode: answer.optionId as SessionRecord['settings']['permissionMode'],
        planMode: false,
      });
    }
  }

  #supersede(d: ProjectionDraft, interaction: InteractionRecord, resolution: SupersedeResolution): void {
    const superseded: InteractionRecord = { ...interaction, status: 'superseded', resolution, resolvedAt: d.now };
    d.putInteraction(superseded);
    this.#emitResolved(d, superseded);
  }

  #emitResolved(d: ProjectionDraft, interaction: InteractionRecord): void {
    const resolution = interaction.resolution ?? 'answered';
    d.emit({
      type: 'permission_resolved',
      data: {
        session_id: d.sessionId,
        turnId: interaction.turnId,
        requestId: interaction.requestId,
        status: interaction.status,
        resolution,
        answer: interaction.answer,
      },
    });
    d.emitHost({
      type: 'permission_resolved',
      data: {
        session_id: d.sessionId,
        turnId: interaction.turnId,
        requestId: interaction.requestId,
        status: interaction.status,
        resolution,
      },
    });
  }

  #applySettings(d: ProjectionDraft, patch: PatchSettingsBody): void {
    const before = d.session.settings;
    const settings = {
      model: patch.model ?? before.model,
      permissionMode: patch.permissionMode ?? before.permissionMode,
      planMode: patch.planMode ?? before.planMode,
      effort: patch.effort ?? before.effort,
    };
    if (JSON.stringify(settings) === JSON.stringify(before)) return;
    d.patchSession({ settings }, true);
    d.emit({
      type: 'settings',
      data: { session_id: d.sessionId, settings, effectiveModel: d.session.effectiveModel },
    });
    if (settings.permissionMode !== before.permissionMode || settings.planMode !== before.planMode) {
      d.emit({
        type: 'mode_changed',
        data: { session_id: d.sessionId, permissionMode: settings.permissionMode, planMode: settings.planMode },
      });
    }
  }

  #compaction(d: ProjectionDraft, turnId: string, text: string, started: boolean): void {
    const turn = this.#outputTurn(d, turnId);
    if (turn === undefined) return;
    const open = d.messagesOfTurn(turn.id).find((row) => row.noticeKind === 'compaction' && row.status === 'streaming');
    const content: ContentBlock[] = [{ type: 'text', text }];
    const status: MessageRecord['status'] = started ? 'streaming' : 'complete';
    const row: MessageRecord =
      open === undefined
        ? this.#newRow(d, turn.id, 'system', content, status, { noticeKind: 'compaction' })
        : { ...open, content, status, updatedAt: d.now };
    d.putMessage(row);
    d.emit({ type: 'notice', data: { session_id: d.sessionId, turnId: turn.id, message: messageView(row) } });
    d.touch();
  }

  #sidecarTerminal(d: ProjectionDraft, turnId: string, ending: TurnEnding): void {
    const turn = d.turn(turnId);
    if (turn === undefined) {
      d.dropped = 'the end of an unknown turn';
      return;
    }
    this.#endTurn(d, turn, ending);
  }

  /**
   * Invariant 3: a turn ends once. Its streaming text is marked interrupted, calls it left open get a
   * synthesized error result (except, when it completed, the calls of background work that goes on),
   * its pending interactions are superseded, then `result` (or `turn_canceled`) and `done`, last.
   */
  #endTurn(d: ProjectionDraft, turn: TurnRecord, ending: TurnEnding): void {
    if (isTerminalTurn(turn)) return;
    const wasQueued = turn.status === 'queued';
    const reason =
      ending.status === 'canceled'
        ? 'the turn was canceled'
        : ending.status === 'interrupted'
          ? 'the host restarted'
          : ending.status === 'failed'
            ? `the turn failed (${ending.error.message})`
            : 'the turn ended';
    for (const row of d.messagesOfTurn(turn.id)) {
      const tool = toolBlockOf(row);
      if (tool !== undefined) {
        if (tool.status !== 'running') continue;
        if (ending.status === 'completed' && tool.parentToolUseId !== null) continue; // subagent work goes on
        this.#synthesize(d, row, reason);
        continue;
      }
      if (row.status === 'streaming' && row.role === 'assistant') this.#interruptText(d, row);
    }
    for (const interaction of [...d.allInteractions()]) {
      if (interaction.turnId === turn.id && interaction.status === 'pending')
        this.#supersede(d, interaction, 'turn_ended');
    }
    const error = ending.status === 'failed' || ending.status === 'interrupted' ? ending.error : null;
    const ended: TurnRecord = {
      ...turn,
      status: ending.status,
      stopReason: ending.status === 'completed' ? ending.stopReason : turn.stopReason,
      error,
      cancelDisposition:
        ending.status === 'canceled' ? (ending.disposition ?? turn.cancelDisposition) : turn.cancelDisposition,
      endedAt: d.now,
    };
    d.putTurn(ended);
    const base = { session_id: d.sessionId, turnId: turn.id };
    if (ending.status === 'completed' || ending.status === 'failed') {
      d.emit({
        type: 'result',
        data: {
          ...base,
          outcome: ending.status,
          stopReason: ended.stopReason,
          error,
          usage: ended.usage,
          durationMs: ended.startedAt === null ? null : d.now - ended.startedAt,
        },
      });
    } else if (ending.status === 'canceled') {
      d.emit({
        type: 'turn_canceled',
        data: { ...base, disposition: ended.cancelDisposition, reason: ending.reason ?? null },
      });
    }
    d.emit({ type: 'done', data: { ...base, outcome: ending.status as TurnOutcome, error } });
    d.endedTurnIds.push(turn.id);
    if (wasQueued) this.#emitQueue(d);
    d.touch();
  }

  #interruptText(d: ProjectionDraft, row: MessageRecord): void {
    d.putMessage({ ...row, status: 'interrupted', updatedAt: d.now });
    const block = row.content[0];
    const kind = block?.type === 'thinking' ? 'thinking' : 'text';
    d.emit({
      type: kind,
      data: {
        session_id: d.sessionId,
        turnId: row.turnId,
        messageId: row.id,
        delta: '',
        final: true,
        text: blockText(row),
        interrupted: true,
      },
    });
  }

  /** The sidecar is gone or the host restarted: every live turn ends, pending interactions and background work too. */
  #endEverything(d: ProjectionDraft, resolution: 'sidecar_exited' | 'host_restarted', ending: TurnEnding): void {
    for (const interaction of [...d.allInteractions()]) {
      if (interaction.status === 'pending') this.#supersede(d, interaction, resolution);
    }
    for (const turn of [...d.allTurns()]) if (turn.status === 'running') this.#endTurn(d, turn, ending);
    const reason = resolution === 'sidecar_exited' ? 'the sidecar exited' : 'the host restarted';
    this.#clearBackground(d, reason);
    for (const row of [...d.allMessages()]) {
      if (row.status === 'streaming' && row.role === 'assistant' && toolBlockOf(row) === undefined) {
        this.#interruptText(d, row);
      }
    }
  }

  #startRows(d: ProjectionDraft, turn: TurnRecord, imageBytes: ReadonlyMap<string, number>): void {
    const row = this.#userRow(d, turn.id, turn.prompt ?? '', turn.input, imageBytes, {
      clientMessageId: turn.clientMessageId,
    });
    d.emit({
      type: 'turn_started',
      data: { session_id: d.sessionId, turnId: turn.id, kind: 'user', message: messageView(row) },
    });
  }

  #userRow(
    d: ProjectionDraft,
    turnId: string,
    prompt: string,
    input: readonly TurnInputBlock[],
    imageBytes: ReadonlyMap<string, number>,
    extra: Partial<MessageRecord>,
  ): MessageRecord {
    const content: ContentBlock[] = [];
    if (prompt !== '') content.push({ type: 'text', text: prompt });
    for (const block of input) {
      content.push(
        block.type === 'text'
          ? { type: 'text', text: block.text }
          : {
              type: 'image',
              attachmentId: block.attachmentId,
              mediaType: block.mediaType,
              bytes: imageBytes.get(block.attachmentId) ?? 0,
            },
      );
    }
    const row = this.#newRow(d, turnId, 'user', content, 'complete', extra);
    d.putMessage(row);
    return row;
  }

  #emitQueue(d: ProjectionDraft): void {
    const queued = [...d.allTurns()].filter((turn) => turn.status === 'queued').sort((a, b) => a.ordinal - b.ordinal);
    d.emit({ type: 'queue', data: { session_id: d.sessionId, queuedPrompts: queued.map(queuedPrompt) } });
  }

  /** Events the protocol package does not list yet (a newer sidecar): the ones the contract maps already. */
  #unlisted(d: ProjectionDraft, event: { type: string; payload: Record<string, unknown> }): void {
    if (event.type === 'turn_stalled') {
      const { turnId, silentMs } = event.payload;
      if (typeof turnId !== 'string' || typeof silentMs !== 'number' || d.turn(turnId) === undefined) return;
      d.emit({ type: 'turn_stalled', data: { session_id: d.sessionId, turnId, silentMs } });
    }
    // commands_updated, speed_updated, sdk_lifecycle_observed, continuation_delayed, guidance_interrupted
    // and the goal events change nothing the host shows (goals: not yet, docs/host-api.md says so).
  }

  /** Lets go of turns (and their rows) that can no longer change; keeps what status and late events need. */
  evict(): void {
    const state = this.#state;
    const keep = new Set<string>();
    let lastRan: TurnRecord | undefined;
    for (const turn of state.turns.values()) {
      if (!isTerminalTurn(turn)) keep.add(turn.id);
      if (turn.startedAt !== null && (lastRan === undefined || turn.ordinal > lastRan.ordinal)) lastRan = turn;
    }
    if (lastRan !== undefined) keep.add(lastRan.id);
    for (const task of state.session.backgroundTasks) keep.add(task.turnId);
    for (const [turnId, ids] of state.messagesByTurn) {
      if (keep.has(turnId)) continue;
      // A turn with a call still open (a subagent's, say) stays until that call has its result.
      if ([...ids].some((id) => toolBlockOf(state.messages.get(id)!)?.status === 'running')) {
        keep.add(turnId);
      }
    }
    for (const turnId of [...state.turns.keys()]) {
      if (keep.has(turnId)) continue;
      state.turns.delete(turnId);
      for (const id of state.messagesByTurn.get(turnId) ?? []) {
        const row = state.messages.get(id);
        state.messages.delete(id);
        if (row?.toolUseId != null) state.toolRows.delete(row.toolUseId);
        if (row?.sourceMessageId != null) state.sourceRows.delete(sourceKey(row.turnId, row.sourceMessageId));
      }
      state.messagesByTurn.delete(turnId);
    }
    for (const [requestId, interaction] of state.interactions) {
      if (interaction.status !== 'pending' && !keep.has(interaction.turnId)) state.interactions.delete(requestId);
    }
  }
}

type TurnEnding =
  | { readonly status: 'completed'; readonly stopReason: string }
  | { readonly status: 'failed'; readonly error: TurnError }
  | { readonly status: 'interrupted'; readonly error: TurnError }
  | { readonly status: 'canceled'; readonly reason?: string | null; readonly disposition?: CancelDisposition };

function toolBlockOf(row: MessageRecord): ToolUseBlock | undefined {
  const block = row.content[0];
  return block?.type === 'tool_use' ? block : undefined;
}

function resultBlockOf(row: MessageRecord): ToolResultBlock | undefined {
  for (const block of row.content) if (block.type === 'tool_result') return block;
  return undefined;
}

function blockText(row: MessageRecord): string {
  const block = row.content[0];
  if (block?.type === 'text') return block.text;
  if (block?.type === 'thinking') return block.thinking;
  return '';
}

function sameResult(a: ToolResultBlock, b: ToolResultBlock): boolean {
  return a.resultSource === b.resultSource && a.is_error === b.is_error && a.content === b.content;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function imageSizes(attachments: readonly AttachmentRecord[]): Map<string, number> {
  return new Map(attachments.map((attachment) => [attachment.id, attachment.bytes.byteLength]));
}
