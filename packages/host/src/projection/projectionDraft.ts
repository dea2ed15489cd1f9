import type { HostEventDraft, SessionEventDraft, TranscriptCopy, WriteUnit } from '../store/hostStore.ts';
import type {
  AttachmentRecord,
  InteractionRecord,
  MessageRecord,
  SessionRecord,
  TaskRecord,
  TurnRecord,
} from '../store/records.ts';
import { computeSessionStatus } from './sessionStatus.ts';
import type { SdkPlan } from './taskProjection.ts';
import { sessionSummary } from './views.ts';

/** How often `lastActivityAt` is rewritten while output streams (it orders the sidebar, nothing finer). */
const ACTIVITY_RESOLUTION_MS = 1_000;

/**
 * The committed state a session's projector works on: its session row, the turns that can still
 * change (queued, running, owning background work, the latest that ran) with their messages, its
 * interactions, and the counters new rows continue from.
 */
export interface ProjectorState {
  session: SessionRecord;
  readonly turns: Map<string, TurnRecord>;
  readonly messages: Map<string, MessageRecord>;
  readonly messagesByTurn: Map<string, Set<string>>;
  /** tool_use_id → message id of its tool row. */
  readonly toolRows: Map<string, string>;
  /** `${turnId} ${sidecar messageId}` → message id of the text/thinking row it folds into. */
  readonly sourceRows: Map<string, string>;
  readonly interactions: Map<string, InteractionRecord>;
  nextPosition: number;
  nextOrdinal: number;
  hasTranscript: boolean;
}

export const sourceKey = (turnId: string, sourceMessageId: string): string => `${turnId} ${sourceMessageId}`;

/** Puts a committed row into the state, indexed by its turn, its tool call and the sidecar message it folds. */
export function holdMessage(state: ProjectorState, message: MessageRecord): void {
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

/**
 * One projection in the making: reads see the committed state with this projection's own changes on
 * top; writes collect whole rows and events. Nothing touches the state until the unit is committed
 * and `foldInto` runs, so a refused commit leaves the projector as the store has it.
 */
export class ProjectionDraft {
  readonly now: number;
  readonly #state: ProjectorState;
  session: SessionRecord;
  #sessionChanged = false;
  #summaryChanged = false;
  readonly turns = new Map<string, TurnRecord>();
  readonly messages = new Map<string, MessageRecord>();
  readonly interactions = new Map<string, InteractionRecord>();
  readonly toolRows = new Map<string, string>();
  readonly sourceRows = new Map<string, string>();
  readonly attachments: AttachmentRecord[] = [];
  readonly tasks: TaskRecord[] = [];
  readonly deleteTaskIds: string[] = [];
  /**
   * The agent's plan, left out of `toUnit`: its sync needs the session's task rows, which the projector
   * does not hold; the ledger reads them and adds the sync (`withTaskChange`) before the commit.
   */
  sdkPlan: SdkPlan | undefined;
  copyTranscript: TranscriptCopy | undefined;
  readonly events: SessionEventDraft[] = [];
  readonly hostEvents: HostEventDraft[] = [];
  nextPosition: number;
  nextOrdinal: number;
  hasTranscript: boolean;
  readonly endedTurnIds: string[] = [];
  identityViolationTurnId: string | undefined;
  /** Why an event changed nothing although it should have (an unknown turn, a broken barrier): for the runtime's log. */
  dropped: string | undefined;

  constructor(state: ProjectorState, now: number) {
    this.#state = state;
    this.now = now;
    this.session = state.session;
    this.nextPosition = state.nextPosition;
    this.nextOrdinal = state.nextOrdinal;
    this.hasTranscript = state.hasTranscript;
  }

  get sessionId(): string {
    return this.session.id;
  }

  // ─── reads (state + this draft) ──────────────────────────────────────────────────────────────

  turn(turnId: string): TurnRecord | undefined {
    return this.turns.get(turnId) ?? this.#state.turns.get(turnId);
  }

  *allTurns(): Iterable<TurnRecord> {
    for (const turn of this.#state.turns.values()) yield this.turns.get(turn.id) ?? turn;
    for (const turn of this.turns.values()) if (!this.#state.turns.has(turn.id)) yield turn;
  }

  message(messageId: string): MessageRecord | undefined {
    return this.messages.get(messageId) ?? this.#state.messages.get(messageId);
  }

  toolRow(toolUseId: string): MessageRecord | undefined {
    const id = this.toolRows.get(toolUseId) ?? this.#state.toolRows.get(toolUseId);
    return id === undefined ? undefined : this.message(id);
  }

  sourceRow(turnId: string, sourceMessageId: string): MessageRecord | undefined {
    const key = sourceKey(turnId, sourceMessageId);
    const id = this.sourceRows.get(key) ?? this.#state.sourceRows.get(key);
    return id === undefined ? undefined : this.message(id);
  }

  /** Every row of a turn (committed and drafted), by position. */
  messagesOfTurn(turnId: string): MessageRecord[] {
    const rows = new Map<string, MessageRecord>();
    for (const id of this.#state.messagesByTurn.get(turnId) ?? []) rows.set(id, this.message(id)!);
    for (const row of this.messages.values()) if (row.turnId === turnId) rows.set(row.id, row);
    return [...rows.values()].sort((a, b) => a.position - b.position);
  }

  /** Every row this projector holds (open rows of background work live under ended turns too). */
  *allMessages(): Iterable<MessageRecord> {
    for (const row of this.#state.messages.values()) yield this.messages.get(row.id) ?? row;
    for (const row of this.messages.values()) if (!this.#state.messages.has(row.id)) yield row;
  }

  interaction(requestId: string): InteractionRecord | undefined {
    return this.interactions.get(requestId) ?? this.#state.interactions.get(requestId);
  }

  *allInteractions(): Iterable<InteractionRecord> {
    for (const item of this.#state.interactions.values()) yield this.interactions.get(item.requestId) ?? item;
    for (const item of this.interactions.values()) if (!this.#state.interactions.has(item.requestId)) yield item;
  }

  // ─── writes ──────────────────────────────────────────────────────────────────────────────────

  putTurn(turn: TurnRecord): void {
    this.turns.set(turn.id, turn);
  }

  putMessage(message: MessageRecord): void {
    this.messages.set(message.id, message);
    if (message.toolUseId !== null) this.toolRows.set(message.toolUseId, message.id);
    if (message.sourceMessageId !== null) {
      this.sourceRows.set(sourceKey(message.turnId, message.sourceMessageId), message.id);
    }
  }

  putInteraction(interaction: InteractionRecord): void {
    this.interactions.set(interaction.requestId, interaction);
  }

  /** A fresh transcript position (rows are ordered by it). */
  position(): number {
    return this.nextPosition++;
  }

  ordinal(): number {
    return this.nextOrdinal++;
  }

  /** Changes session fields; `visible` marks a change the sidebar shows (host `session` event). */
  patchSession(patch: Partial<SessionRecord>, visible = false): void {
    this.session = { ...this.session, ...patch };
    this.#sessionChanged = true;
    if (visible) this.#summaryChanged = true;
  }

  /** Something happened in the session: keeps `lastActivityAt` current to the second. */
  touch(): void {
    if (this.now - this.session.lastActivityAt >= ACTIVITY_RESOLUTION_MS)
      this.patchSession({ lastActivityAt: this.now });
  }

  emit(event: SessionEventDraft): void {
    this.events.push(event);
  }

  /** The session's `status` event, as the session row now stands. */
  emitStatus(): void {
    const { status, closed, needsInputCount, runningTurnId, queuePaused, lastError } = this.session;
    this.emit({
      type: 'status',
      data: { session_id: this.sessionId, status, closed, needsInputCount, runningTurnId, queuePaused, lastError },
    });
  }

  emitHost(event: HostEventDraft): void {
    this.hostEvents.push(event);
  }

  get isEmpty(): boolean {
    return (
      !this.#sessionChanged &&
      this.turns.size === 0 &&
      this.messages.size === 0 &&
      this.interactions.size === 0 &&
      this.attachments.length === 0 &&
      this.tasks.length === 0 &&
      this.deleteTaskIds.length === 0 &&
      this.sdkPlan === undefined &&
      this.copyTranscript === undefined &&
      this.events.length === 0 &&
      this.hostEvents.length === 0
    );
  }

  /**
   * Recomputes the session's status from the drafted state (*status from committed state*): a change is stored with
   * the row and announced as `status` on the session stream and `session` on the host stream.
   */
  settleStatus(): void {
    const before = this.#state.session;
    const computed = computeSessionStatus({
      turns: this.allTurns(),
      interactions: this.allInteractions(),
      backgroundTasks: this.session.backgroundTasks,
    });
    const changed =
      computed.status !== before.status ||
      computed.needsInputCount !== before.needsInputCount ||
      computed.runningTurnId !== before.runningTurnId ||
      computed.runningTurnStartedAt !== before.runningTurnStartedAt ||
      computed.queuePaused !== before.queuePaused ||
      JSON.stringify(computed.lastError) !== JSON.stringify(before.lastError) ||
      this.session.closed !== before.closed;
    if (changed) {
      this.patchSession({ ...computed, lastActivityAt: this.now }, true);
      this.emitStatus();
    }
    if (this.#sessionChanged) this.session = { ...this.session, updatedAt: this.now };
    if (this.#summaryChanged) this.emitHost({ type: 'session', data: { session: sessionSummary(this.session) } });
  }

  toUnit(): WriteUnit {
    return {
      ...(this.#sessionChanged ? { sessions: [this.session] } : {}),
      ...(this.copyTranscript === undefined ? {} : { copyTranscript: this.copyTranscript }),
      ...(this.turns.size > 0 ? { turns: [...this.turns.values()] } : {}),
      ...(this.attachments.length > 0 ? { attachments: this.attachments } : {}),
      ...(this.messages.size > 0 ? { messages: [...this.messages.values()] } : {}),
      ...(this.interactions.size > 0 ? { interactions: [...this.interactions.values()] } : {}),
      ...(this.tasks.length > 0 ? { tasks: this.tasks } : {}),
      ...(this.deleteTaskIds.length > 0 ? { deleteTaskIds: this.deleteTaskIds } : {}),
      ...(this.events.length > 0 ? { sessionEvents: this.events } : {}),
      ...(this.hostEvents.length > 0 ? { hostEvents: this.hostEvents } : {}),
    };
  }

  /** After the commit: the drafted rows become the projector's state. */
  foldInto(state: ProjectorState): void {
    state.session = this.session;
    for (const turn of this.turns.values()) state.turns.set(turn.id, turn);
    for (const message of this.messages.values()) holdMessage(state, message);
    for (const interaction of this.interactions.values()) state.interactions.set(interaction.requestId, interaction);
    state.nextPosition = this.nextPosition;
    state.nextOrdinal = this.nextOrdinal;
    state.hasTranscript = this.hasTranscript;
  }
}
