import type {
  HostEvent,
  Interaction,
  InteractionAnswer,
  MessageView,
  QueuedPrompt,
  SessionDetail,
  SessionEvent,
  SessionEventPayload,
  SessionEventType,
  SessionSnapshot,
  SessionSummary,
  Task,
  TurnError,
} from '@outrigger/host-api';
import { hostLimits, type ToolUseBlock, toolDecisionOf } from '@outrigger/host-api';
import { sessionReducer, toolOf } from '../../src/data/sessionReducer.ts';
import { emptySessionState, type SessionViewState } from '../../src/data/sessionState.ts';
import { snapshot as emptySnapshot } from '../../src/data/testing/fixtures.ts';
import { snapshotOf } from '../../src/data/testing/snapshotOf.ts';
import type { FakeCheckpoints } from './fakeCheckpoints.ts';
import type { FakeWorktree } from './fakeWorktree.ts';
import { HttpError } from './httpError.ts';

/** A host stream event before the host gives it its seq. */
export type HostEventInput = HostEvent extends infer E
  ? E extends { type: infer T; data: infer D }
    ? { type: T; data: Omit<D, 'seq'> }
    : never
  : never;

type Fields<T extends SessionEventType> = Omit<SessionEventPayload<T>, 'seq' | 'session_id'>;

export interface PendingAnswer {
  interaction: Interaction;
  resolve: (answer: InteractionAnswer) => void;
}

/**
 * One session of the fixture host: an event log with seqs, the same fold the browser uses to build
 * snapshots, live subscribers, pending interactions and the queue. It is a stand-in for the real
 * host while the UI is developed and tested visually; it is never part of the product.
 */
export class FakeSession {
  detail: SessionDetail;
  /** Kept beside `detail`, which follows the session reducer (no event carries the archive state). */
  archivedAt: number | null = null;
  readonly log: SessionEvent[] = [];
  view: SessionViewState;
  readonly subscribers = new Set<(event: SessionEvent) => void>();
  readonly pending = new Map<string, PendingAnswer>();
  readonly fullResults = new Map<string, string>();
  readonly allowedForSession = new Set<string>();
  readonly sentByClientId = new Map<string, { turnId: string; queued: boolean; steered: boolean }>();
  queue: (QueuedPrompt & { content: MessageView['content'] })[] = [];
  running: { turnId: string; abort: AbortController } | null = null;
  lastTurnFailed: TurnError | null = null;
  /** The session's checkpoints over its working directory (shared with the sessions in the same folder). */
  readonly checkpoints: FakeCheckpoints;
  readonly worktree: FakeWorktree | null;
  #seq = 0;
  #rows = 0;
  readonly #publishHost: (event: HostEventInput) => void;

  constructor(
    detail: SessionDetail,
    publishHost: (event: HostEventInput) => void,
    checkpoints: FakeCheckpoints,
    worktree: FakeWorktree | null = null,
  ) {
    this.detail = detail;
    this.#publishHost = publishHost;
    this.checkpoints = checkpoints;
    this.worktree = worktree;
    this.view = sessionReducer(emptySessionState(detail.id), {
      type: 'snapshot',
      snapshot: emptySnapshot({ session: detail }),
    });
  }

  get id(): string {
    return this.detail.id;
  }

  nextRowId(): string {
    this.#rows += 1;
    return `${this.id}-m${this.#rows}`;
  }

  emit<T extends SessionEventType>(type: T, data: Fields<T>): SessionEvent {
    this.#seq += 1;
    const event = { type, data: { ...data, session_id: this.id, seq: this.#seq } } as unknown as SessionEvent;
    this.log.push(event);
    this.view = sessionReducer(this.view, { type: 'event', event, receivedAt: Date.now() });
    if (this.view.session !== null) this.detail = this.view.session;
    for (const subscriber of this.subscribers) subscriber(event);
    return event;
  }

  /** The call `toolUseId` as the session's rows hold it now, with its row id. */
  toolCall(toolUseId: string): { messageId: string; turnId: string; tool: ToolUseBlock } | undefined {
    for (const row of Object.values(this.view.rows)) {
      const tool = toolOf(row);
      if (tool?.id === toolUseId) return { messageId: row.id, turnId: row.turnId, tool };
    }
    return undefined;
  }

  /** As the host does: the decision is stored on the call (a `tool_use` carrying it), so a reload shows it. */
  decide(interaction: Interaction, answer: InteractionAnswer | null): void {
    const call = this.toolCall(interaction.tool_use_id);
    if (call === undefined) return;
    const resolved = { ...interaction, resolution: answer === null ? ('turn_ended' as const) : ('answered' as const) };
    const decision = toolDecisionOf(resolved, answer, Date.now());
    this.emit('tool_use', { turnId: call.turnId, messageId: call.messageId, tool: { ...call.tool, decision } });
  }

  /** Recomputes the status the way the host does and publishes it on both streams. */
  publishStatus(): void {
    const needsInputCount = this.pending.size;
    const status =
      needsInputCount > 0
        ? 'needs_input'
        : this.running !== null || this.view.backgroundTasks.length > 0
          ? 'running'
          : this.lastTurnFailed !== null
            ? 'failed'
            : 'idle';
    this.emit('status', {
      status,
      closed: this.detail.closed,
      needsInputCount,
      runningTurnId: this.running?.turnId ?? null,
      queuePaused: this.queue.some((queued) => queued.paused),
      lastError: status === 'failed' ? this.lastTurnFailed : null,
    });
    this.publishSummary();
  }

  publishSummary(): void {
    this.#publishHost({ type: 'session', data: { session: this.summary() } });
  }

  publishHost(event: HostEventInput): void {
    this.#publishHost(event);
  }

  summary(): SessionSummary {
    const {
      providerSessionId: _p,
      settings: _s,
      effectiveModel: _e,
      configOptions: _c,
      usage: _u,
      worktree: _w,
      ...summary
    } = this.detail;
    const running = this.running === null ? undefined : this.view.turns[this.running.turnId];
    return {
      ...summary,
      archivedAt: this.archivedAt,
      runningTurnStartedAt: running?.startedAt ?? null,
      queuePaused: this.queue.some((queued) => queued.paused),
      lastActivityAt: Date.now(),
    };
  }

  snapshot(): SessionSnapshot {
    const snapshot = snapshotOf(this.view);
    const messages = snapshot.messages.messages;
    const page = messages.slice(-hostLimits.messagesPageDefault);
    return {
      ...snapshot,
      session: { ...this.detail, archivedAt: this.archivedAt },
      tasks: this.view.tasks as Task[],
      messages: { ...snapshot.messages, messages: page, hasMore: page.length < messages.length },
    };
  }

  /** The user turns that ran, oldest first (what the host lists the changes of). */
  userTurnIds(): string[] {
    return Object.values(this.view.turns)
      .filter((turn) => turn.kind === 'user' && turn.status !== 'queued')
      .sort((a, b) => (a.startedAt ?? a.createdAt) - (b.startedAt ?? b.createdAt))
      .map((turn) => turn.id);
  }

  /** Refuses what must wait for the session to be idle, as the host does (409); paused prompts do not hold it. */
  mustBeIdle(what: string): void {
    if (this.running !== null) throw new HttpError('conflict', `a turn is running; ${what} once it has ended`);
    if (this.queue.some((queued) => !queued.paused))
      throw new HttpError('conflict', `prompts are queued; ${what} once they have run`);
  }

  // ─── the prompt queue, as the host's (docs/host-api.md, "Stop must stop") ──────────────────

  /** The `queue` event with the queue as it is now. */
  emitQueue(): void {
    this.emit('queue', { queuedPrompts: this.queue.map(({ content: _c, ...queued }) => queued) });
  }

  /** The user's Stop of the running turn: every prompt queued behind it is paused. */
  pauseQueue(): void {
    if (!this.queue.some((queued) => !queued.paused)) return;
    this.queue = this.queue.map((queued) => ({ ...queued, paused: true }));
    this.emitQueue();
    this.publishStatus();
  }

  /** Resume: nothing is paused any more. */
  resumeQueue(): void {
    if (!this.queue.some((queued) => queued.paused)) return;
    this.queue = this.queue.map((queued) => ({ ...queued, paused: false }));
    this.emitQueue();
  }

  /** Takes a queued prompt out to run it: `turnId`'s, or the next one that is not paused. */
  takeQueued(turnId?: string): (QueuedPrompt & { content: MessageView['content'] }) | undefined {
    const index = this.queue.findIndex((queued) => (turnId === undefined ? !queued.paused : queued.turnId === turnId));
    if (index === -1) return undefined;
    const [taken] = this.queue.splice(index, 1);
    this.emitQueue();
    return taken;
  }

  messagesBefore(before: number | undefined, limit: number) {
    const all = this.view.order
      .map((id) => this.view.rows[id]!)
      .filter((row) => before === undefined || row.position < before);
    const page = all.slice(-limit);
    const turnIds = new Set(page.map((row) => row.turnId));
    return {
      messages: page,
      turns: Object.values(this.view.turns).filter((turn) => turnIds.has(turn.id)),
      hasMore: page.length < all.length,
    };
  }
}
