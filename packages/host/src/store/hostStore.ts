import type {
  HostEvent,
  HostEventPayload,
  HostEventType,
  InteractionStatus,
  SessionArchiveFilter,
  SessionEvent,
  SessionEventPayload,
  SessionEventType,
  TurnStatus,
} from '@outrigger/host-api';
import type {
  AttachmentRecord,
  InteractionRecord,
  MessageRecord,
  SessionRecord,
  TaskRecord,
  TurnRecord,
} from './records.ts';

/*
 * The store behind the host: every row and both event logs. All SQL lives behind this interface, so
 * a PostgreSQL store (several hosts on one database) can implement it without touching callers:
 * every method is async, a write is one `WriteUnit` committed as one transaction, event `seq`s are
 * assigned by the store inside that transaction, and the reads that must agree with each other
 * (a snapshot, a projector's state) come as one call each (one read transaction).
 */

/** A session event before the store gave it its `seq`. Its log is `data.session_id`. */
export type SessionEventDraft = {
  [T in SessionEventType]: { type: T; data: Omit<SessionEventPayload<T>, 'seq'> };
}[SessionEventType];

/** A host-stream event before the store gave it its `seq`. */
export type HostEventDraft = {
  [T in HostEventType]: { type: T; data: Omit<HostEventPayload<T>, 'seq'> };
}[HostEventType];

/**
 * One transaction: row changes, then appended events. Either all of it is committed or none of it
 * (the store throws and nothing changed, seqs included). Rows are put whole (insert or replace).
 * Order inside the transaction: deleted sessions, sessions, the transcript copy (so the unit's own turns can rebind
 * copied ones), turns, attachments, messages, interactions, tasks, deleted tasks, then session events
 * in order, then host events in order. A unit is rows and events only: what they should be (the
 * TodoWrite sync, the task list a `task_update` or `tasks_changed` carries) is the projection's
 * (src/projection/taskProjection.ts), so another store implements this without any domain rule.
 */
export interface WriteUnit {
  readonly sessions?: readonly SessionRecord[];
  readonly turns?: readonly TurnRecord[];
  readonly attachments?: readonly AttachmentRecord[];
  readonly messages?: readonly MessageRecord[];
  readonly interactions?: readonly InteractionRecord[];
  readonly tasks?: readonly TaskRecord[];
  readonly deleteTaskIds?: readonly string[];
  /**
   * Sessions deleted for good, before anything else of the unit: every row of theirs (turns, messages,
   * attachments, interactions, tasks), their session event log, and the host log's events about them.
   */
  readonly deleteSessionIds?: readonly string[];
  /**
   * Fork: copy the source's turns up to and including `throughTurnId` (by ordinal) and their messages
   * into `toSessionId` (whose row must come in the same unit or exist).
   */
  readonly copyTranscript?: TranscriptCopy;
  readonly sessionEvents?: readonly SessionEventDraft[];
  readonly hostEvents?: readonly HostEventDraft[];
}

export interface TranscriptCopy {
  readonly fromSessionId: string;
  readonly toSessionId: string;
  readonly throughTurnId: string;
}

/** What a commit appended, with the seqs the store gave: publish exactly these, in this order. */
export interface CommitResult {
  readonly sessionEvents: readonly SessionEvent[];
  readonly hostEvents: readonly HostEvent[];
}

export interface MessagePageQuery {
  /** Only rows with a smaller position; absent: from the newest. */
  readonly before?: number;
  readonly limit: number;
}

/** Rows oldest first; `hasMore`: older rows exist. */
export interface MessageRecordPage {
  readonly messages: readonly MessageRecord[];
  readonly hasMore: boolean;
}

/** Everything `GET /api/sessions/:id` needs, read at one consistent point (`lastSeq`). */
export interface SessionSnapshotRecords {
  readonly session: SessionRecord;
  readonly lastSeq: number;
  /** Turns `queued` or `running`, by ordinal. */
  readonly liveTurns: readonly TurnRecord[];
  readonly pendingInteractions: readonly InteractionRecord[];
  readonly tasks: readonly TaskRecord[];
  readonly page: MessageRecordPage;
  /** The turns the page's rows belong to. */
  readonly pageTurns: readonly TurnRecord[];
}

/**
 * What a session's projector needs to continue after a restart (or after a failed commit), read at
 * one consistent point: the session, its live turns (queued, running, or still owning background
 * work) plus its latest terminal turn, every message of those turns, its pending interactions, and
 * the counters it continues from.
 */
export interface ProjectionStateRecords {
  readonly session: SessionRecord;
  readonly turns: readonly TurnRecord[];
  readonly messages: readonly MessageRecord[];
  readonly pendingInteractions: readonly InteractionRecord[];
  readonly lastSeq: number;
  /** max(position) + 1, 0 for an empty transcript. */
  readonly nextPosition: number;
  /** max(ordinal) + 1, 0 without turns. */
  readonly nextTurnOrdinal: number;
  /** Some turn of the session was accepted by Claude (has a provider turn id). */
  readonly hasAcceptedTurn: boolean;
}

/** `GET /api/sessions`: the sessions and the host log's seq they are consistent at (one read). */
export interface SessionListRecords {
  readonly sessions: readonly SessionRecord[];
  /** The host stream's last seq: its `session` events after it change these rows, none before it does. */
  readonly lastHostSeq: number;
}

/** `GET /api/interactions`: the interactions and the host log's seq they are consistent at (one read). */
export interface InteractionListRecords {
  readonly interactions: readonly InteractionRecord[];
  /** The host stream's last seq: its `permission_*` events after it change these rows, none before it does. */
  readonly lastHostSeq: number;
}

export interface InteractionFilter {
  readonly sessionId?: string;
  readonly status?: InteractionStatus;
}

/** A prompt already taken with this `clientMessageId`: a turn's (`steer:false`) or a steer message's. */
export interface ClientMessageHit {
  readonly turnId: string;
  readonly steer: boolean;
}

/** Which sessions a list holds: closed ones or not, and by archive state (default `include`). */
export interface SessionListFilter {
  readonly includeClosed: boolean;
  readonly archived?: SessionArchiveFilter;
}

/** A session whose title or a prompt holds the searched text. */
export interface SessionSearchRecord {
  readonly session: SessionRecord;
  /** The newest prompt holding it, when the title does not. */
  readonly prompt: { readonly turnId: string; readonly text: string } | null;
}

/** One Claude Code transcript as the history's index last read it (`history/`). */
export interface HistoryTranscriptRecord {
  /** `<config>/projects/<folder>/<claudeSessionId>.jsonl`. */
  readonly path: string;
  readonly claudeSessionId: string;
  /** Null: the SDK could not summarise it (empty, only damaged lines). */
  readonly cwd: string | null;
  readonly summary: string | null;
  readonly firstPrompt: string | null;
  readonly customTitle: string | null;
  readonly gitBranch: string | null;
  readonly createdAt: number | null;
  readonly mtimeMs: number;
  readonly size: number;
  readonly messageCount: number;
  readonly indexedAt: number;
}

/** An Outrigger session and one Claude Code session id it has run as (its own, or one of its turns'). */
export interface ProviderSessionOwner {
  readonly providerSessionId: string;
  readonly sessionId: string;
  readonly closed: boolean;
  readonly createdAt: number;
}

export interface HostStoreReader {
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** The oldest session whose Claude Code session is `providerSessionId` (closed ones too), if any. */
  findSessionByProviderSession(providerSessionId: string): Promise<SessionRecord | undefined>;
  /** Newest first (createdAt, then id). */
  listSessions(options: SessionListFilter): Promise<SessionRecord[]>;
  /**
   * Sessions whose title or any prompt contains `text` (case-insensitive for ASCII letters, literally: no
   * pattern characters), newest first, at most `limit`.
   */
  searchSessions(text: string, filter: SessionListFilter, limit: number): Promise<SessionSearchRecord[]>;
  /** The distinct working directories of sessions, the most recently active first, at most `limit`. */
  recentCwds(limit: number): Promise<{ cwd: string; lastUsedAt: number }[]>;

  getTurn(sessionId: string, turnId: string): Promise<TurnRecord | undefined>;
  /** By ordinal; all turns when no filter is given. */
  listTurns(
    sessionId: string,
    filter?: { statuses?: readonly TurnStatus[]; ids?: readonly string[] },
  ): Promise<TurnRecord[]>;
  findClientMessage(sessionId: string, clientMessageId: string): Promise<ClientMessageHit | undefined>;

  listMessages(sessionId: string, query: MessagePageQuery): Promise<MessageRecordPage>;
  /** Every row of one turn, by position. */
  listTurnMessages(sessionId: string, turnId: string): Promise<MessageRecord[]>;
  getMessage(sessionId: string, messageId: string): Promise<MessageRecord | undefined>;
  /** The tool row of `toolUseId` (holding the whole result). */
  getToolMessage(sessionId: string, toolUseId: string): Promise<MessageRecord | undefined>;

  /** In `compareTasks` order: SDK rows first (by sort_order), then user rows (sort_order, created_at, id); all sessions when absent. */
  listTasks(sessionId?: string): Promise<TaskRecord[]>;
  getTask(taskId: string): Promise<TaskRecord | undefined>;

  /** Oldest first (createdAt, then requestId). */
  listInteractions(filter: InteractionFilter): Promise<InteractionRecord[]>;
  getInteraction(sessionId: string, requestId: string): Promise<InteractionRecord | undefined>;

  getAttachment(attachmentId: string): Promise<AttachmentRecord | undefined>;

  /** Stored events with seq > afterSeq, ascending, at most `limit`. */
  readSessionEvents(sessionId: string, afterSeq: number, limit: number): Promise<SessionEvent[]>;
  readHostEvents(afterSeq: number, limit: number): Promise<HostEvent[]>;
  /** 0 when the log is empty. */
  lastSessionSeq(sessionId: string): Promise<number>;
  lastHostSeq(): Promise<number>;

  /** Undefined for an unknown session. */
  loadSessionSnapshot(sessionId: string, pageLimit: number): Promise<SessionSnapshotRecords | undefined>;
  loadProjectionState(sessionId: string): Promise<ProjectionStateRecords | undefined>;
  /** `listSessions` and `lastHostSeq` at one consistent point. */
  loadSessionList(options: SessionListFilter): Promise<SessionListRecords>;
  /** `listInteractions` and `lastHostSeq` at one consistent point. */
  loadInteractionList(filter: InteractionFilter): Promise<InteractionListRecords>;

  /** The history's index: every indexed transcript (any order). */
  listHistoryTranscripts(): Promise<HistoryTranscriptRecord[]>;
  /** The indexed transcripts of one Claude Code session id (one, unless two project folders hold it). */
  findHistoryTranscripts(claudeSessionId: string): Promise<HistoryTranscriptRecord[]>;
  /** Every Claude Code session id any stored session or turn ran as, with its session. */
  listProviderSessionOwners(): Promise<ProviderSessionOwner[]>;
}

export interface HostStore extends HostStoreReader {
  /** One transaction. Throws `StoreError` (nothing kept) when any part fails. */
  commit(unit: WriteUnit): Promise<CommitResult>;
  /** Several units in ONE transaction (group commit): all or none; one result per unit, in order. */
  commitMany(units: readonly WriteUnit[]): Promise<CommitResult[]>;
  /** The history's index: rows put whole (by path) and paths dropped, in one transaction. */
  updateHistoryTranscripts(put: readonly HistoryTranscriptRecord[], deletePaths: readonly string[]): Promise<void>;
  /** Idempotent. Later calls reject with `StoreError`. */
  close(): Promise<void>;
}
