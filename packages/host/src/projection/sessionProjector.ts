import type { SidecarEvent } from '@outrigger/protocol';
import type { ProjectionStateRecords, WriteUnit } from '../store/hostStore.ts';
import type { InteractionRecord, MessageRecord, SessionRecord, TurnRecord } from '../store/records.ts';
import { answerInteraction, interactionRequested } from './interactionProjection.ts';
import { compaction, outputDelta, outputDone, plan } from './outputProjection.ts';
import { holdMessage, ProjectionDraft, type ProjectorState, sourceKey } from './projectionDraft.ts';
import { toolBlockOf } from './rows.ts';
import { type CommandFacts, projectCommand, type SessionCommand } from './sessionCommand.ts';
import { agentTitle, sessionState, slashCommands, usage } from './sessionFields.ts';
import { isTerminalTurn } from './sessionStatus.ts';
import { agentTask, clearBackground, toolResult, toolUse } from './toolProjection.ts';
import { checkpoint, identity, outputTurn, sidecarTerminal, syntheticTurnStarted } from './turnLifecycle.ts';

export type { SupersedeResolution } from './interactionProjection.ts';
export type { CommandFacts, PromptInput, SessionCommand } from './sessionCommand.ts';

/** What one projection produced: the write unit to commit, and what the runtime must act on. */
export interface Projection {
  readonly unit: WriteUnit;
  /** Nothing to commit (a duplicate, an ignored event). */
  readonly empty: boolean;
  /** Turns this projection ended (their `done` is in the unit). */
  readonly endedTurnIds: readonly string[];
  /** A user turn broke the *identity barrier*: it is failed in the unit; the sidecar must stop it. */
  readonly identityViolationTurnId: string | undefined;
  /** Why an event was dropped although it named something (for the runtime's log; never content). */
  readonly dropped: string | undefined;
  readonly draft: ProjectionDraft;
}

/**
 * One session's projection, pure: sidecar events and the runtime's decisions in, whole rows and
 * events out (a `WriteUnit` per call), following docs/host-api.md's mapping and its invariants
 * (the identity barrier, one done per turn, one result per call, todos replace the SDK tasks, status from
 * committed state). Every method returns a `Projection` without changing the projector; the caller commits
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
    for (const message of records.messages ?? []) if (!state.messages.has(message.id)) holdMessage(state, message);
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
          return sessionState(d, event.payload);
        case 'session_title_updated':
          return agentTitle(d, event.payload.title);
        case 'commands_updated':
          return slashCommands(d, event.payload.commands);
        case 'usage_updated':
          return usage(d, event.payload);
        case 'provider_turn_identity_resolved':
          return identity(d, event.payload.turnId, event.payload.providerTurnId);
        case 'provider_turn_checkpoint':
          return checkpoint(d, event.payload.turnId, event.payload.providerCheckpointMessageId);
        case 'turn_started':
          return syntheticTurnStarted(d, event.payload.turnId);
        case 'assistant_delta':
        case 'thinking_delta':
          return this.#output(d, event.payload.turnId, (turn) =>
            outputDelta(d, turn, event.type === 'assistant_delta' ? 'text' : 'thinking', event.payload),
          );
        case 'assistant_completed':
        case 'thinking_completed':
        case 'assistant_failed':
          return this.#output(d, event.payload.turnId, (turn) =>
            outputDone(
              d,
              turn,
              event.type === 'thinking_completed' ? 'thinking' : 'text',
              event.payload,
              event.type === 'assistant_failed',
            ),
          );
        case 'tool_started':
        case 'tool_updated':
          return this.#output(d, event.payload.turnId, (turn) => toolUse(d, turn, event.payload));
        case 'tool_completed':
        case 'tool_failed':
          return this.#output(d, event.payload.turnId, (turn) =>
            toolResult(d, turn, event.payload, event.type === 'tool_failed'),
          );
        case 'task_started':
        case 'task_progress':
        case 'task_completed':
        case 'task_result_updated':
          return this.#output(d, event.payload.turnId, () => agentTask(d, event.payload));
        case 'background_tasks_changed':
        case 'background_tasks_quiesced':
          if (event.payload.runningCount === 0) clearBackground(d, 'the background work ended', 'completed');
          return;
        case 'plan_updated':
          return this.#output(d, event.payload.turnId, (turn) => plan(d, turn, event.payload.entries));
        case 'approval_requested':
        case 'user_input_requested':
          return this.#output(d, event.payload.turnId, (turn) => interactionRequested(d, turn, event.payload));
        case 'approval_resolved':
        case 'user_input_resolved': {
          const { requestId, action, optionId, payload } = event.payload;
          const interaction = d.interaction(requestId);
          if (interaction?.status === 'pending') answerInteraction(d, interaction, { action, optionId, payload });
          return;
        }
        case 'compact_started':
        case 'compact_completed':
        case 'compact_failed':
          return this.#output(d, event.payload.turnId, (turn) =>
            compaction(d, turn, event.payload.content, event.type === 'compact_started'),
          );
        case 'turn_completed':
          return sidecarTerminal(d, event.payload.turnId, {
            status: 'completed',
            stopReason: event.payload.stopReason,
          });
        case 'turn_failed':
          return sidecarTerminal(d, event.payload.turnId, {
            status: 'failed',
            error: {
              message: event.payload.error,
              code: event.payload.code ?? null,
              apiErrorStatus: event.payload.apiErrorStatus ?? null,
            },
          });
        case 'turn_canceled':
          return sidecarTerminal(d, event.payload.turnId, {
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

  /** One of the runtime's decisions (see `SessionCommand`), projected like a sidecar event. */
  project(command: SessionCommand, now: number, facts: CommandFacts = {}): Projection {
    return this.#project(now, (d) => projectCommand(d, command, facts));
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
      d.emitStatus();
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

  /** Output of `turnId`, applied only when the identity barrier lets it through (see `outputTurn`). */
  #output(d: ProjectionDraft, turnId: string, apply: (turn: TurnRecord) => void): void {
    const turn = outputTurn(d, turnId);
    if (turn !== undefined) apply(turn);
  }

  #sortedTurns(): TurnRecord[] {
    return [...this.#state.turns.values()].sort((a, b) => a.ordinal - b.ordinal);
  }

  /** Events the protocol package does not list yet (a newer sidecar): the ones the contract maps already. */
  #unlisted(d: ProjectionDraft, event: { type: string; payload: Record<string, unknown> }): void {
    if (event.type === 'turn_stalled') {
      const { turnId, silentMs } = event.payload;
      if (typeof turnId !== 'string' || typeof silentMs !== 'number' || d.turn(turnId) === undefined) return;
      d.emit({ type: 'turn_stalled', data: { session_id: d.sessionId, turnId, silentMs } });
    }
    // speed_updated, sdk_lifecycle_observed, continuation_delayed, guidance_interrupted
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
