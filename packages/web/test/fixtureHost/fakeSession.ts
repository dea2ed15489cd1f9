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
import { hostLimits } from '@outrigger/host-api';
import { sessionReducer } from '../../src/data/sessionReducer.ts';
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
    return { ...summary, runningTurnStartedAt: running?.startedAt ?? null, lastActivityAt: Date.now() };
  }

  snapshot(): SessionSnapshot {
    const snapshot = snapshotOf(this.view);
    const messages = snapshot.messages.messages;
    const page = messages.slice(-hostLimits.messagesPageDefault);
    return {
      ...snapshot,
      session: this.detail,
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

  /** Refuses what must wait for the session to be idle, as the host does (409). */
  mustBeIdle(what: string): void {
    if (this.running !== null) throw new HttpError('conflict', `a turn is running; ${what} once it has ended`);
    if (this.queue.length > 0) throw new HttpError('conflict', `prompts are queued; ${what} once they have run`);
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
