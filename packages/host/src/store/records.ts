import type {
  BackgroundTask,
  ContentBlock,
  ContinuedFrom,
  ImageMediaType,
  Interaction,
  MessageRole,
  MessageStatus,
  NoticeKind,
  SessionSettings,
  SessionStatus,
  SessionUsage,
  SessionWorktree,
  Task,
  TurnError,
  TurnStatus,
  TurnUsage,
} from '@outrigger/host-api';
import type { CancelDisposition, ConfigOption, ResumeCursor, SlashCommand } from '@outrigger/protocol';

/*
 * The rows the store keeps. They carry what the contract's views show plus what only the host needs
 * (resume cursor, provider binding, checkpoints, where a title came from, the full tool result).
 * `projection/views.ts` turns them into contract views. Every write puts a whole row (insert, or
 * update in place), so a store never merges fields: the caller (the session's projector, one writer
 * per session) owns the row's state. A row's identity fields are written once and never changed by
 * a later put (a message's turn, position, role and ids; a turn's ordinal, kind, input and
 * clientMessageId; an interaction's request; creation times); a queued turn's prompt text may be
 * edited until it starts. Timestamps are epoch milliseconds.
 */

/** Who set the title: `default` (the cwd's name), the `agent` (`session_title_updated`), or the `user` (rename; wins). */
export type TitleSource = 'default' | 'agent' | 'user';

export interface SessionRecord {
  readonly id: string;
  readonly title: string;
  readonly titleSource: TitleSource;
  readonly cwd: string;
  readonly closed: boolean;
  /** Computed by the projector from committed state and stored with each change (*status from committed state*). */
  readonly status: SessionStatus;
  readonly needsInputCount: number;
  readonly runningTurnId: string | null;
  /** When the running turn started (its `startedAt`); null while none runs. Stored with `runningTurnId`. */
  readonly runningTurnStartedAt: number | null;
  /** Some queued prompt is paused (`TurnRecord.paused`); computed and stored with the status. */
  readonly queuePaused: boolean;
  readonly lastError: TurnError | null;
  readonly settings: SessionSettings;
  readonly effectiveModel: string | null;
  readonly configOptions: readonly ConfigOption[];
  /** The slash commands Claude Code last reported (`commands_updated`); empty until it did. */
  readonly slashCommands: readonly SlashCommand[];
  /** Claude's session id (the `start` answer / `session_started`). */
  readonly providerSessionId: string;
  /** The latest `resumeCursor` from `session_started`/`session_state`; sent back in `start` on restart. */
  readonly resumeCursor: ResumeCursor | null;
  readonly usage: SessionUsage;
  /** Agent tasks and background commands still running (snapshot + `background_tasks`). */
  readonly backgroundTasks: readonly BackgroundTask[];
  readonly forkedFrom: { readonly sessionId: string; readonly turnId: string } | null;
  /** The Claude Code session this one continues (`POST /api/history/:id/continue`); null for any other. */
  readonly continuedFrom: ContinuedFrom | null;
  /** The session's own git worktree (its `cwd` is inside it); null for a session in the user's directory. */
  readonly worktree: SessionWorktree | null;
  /** When the user archived it (hidden from the default list); null while it is not archived. */
  readonly archivedAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastActivityAt: number;
}

/** A prompt's input as stored: text, and images by attachment id (their bytes live in `attachments`). */
export type TurnInputBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly attachmentId: string; readonly mediaType: ImageMediaType };

export interface TurnRecord {
  readonly id: string;
  readonly sessionId: string;
  /** Order of turns in the session (queue order, fork cut); assigned by the projector, increasing. */
  readonly ordinal: number;
  readonly kind: 'user' | 'synthetic';
  readonly status: TurnStatus;
  readonly prompt: string | null;
  /** The blocks sent after the prompt (`PostTurnBody.content`), images as attachment ids; empty for synthetic turns. */
  readonly input: readonly TurnInputBlock[];
  readonly clientMessageId: string | null;
  /** A queued prompt the user's Stop paused: it does not start by itself (run now, resume or remove it). */
  readonly paused: boolean;
  /** The durable binding (the *identity barrier*), set when `provider_turn_identity_resolved` arrives. */
  readonly providerTurnId: string | null;
  readonly providerSessionId: string | null;
  /** `provider_turn_checkpoint`; a fork at this turn needs it. */
  readonly checkpointMessageId: string | null;
  readonly stopReason: string | null;
  readonly error: TurnError | null;
  readonly cancelDisposition: CancelDisposition | null;
  readonly usage: TurnUsage | null;
  readonly createdAt: number;
  readonly startedAt: number | null;
  readonly endedAt: number | null;
}

export interface MessageRecord {
  readonly sessionId: string;
  /** Stable across updates and replays; unique in the session. */
  readonly id: string;
  readonly turnId: string;
  readonly position: number;
  readonly role: MessageRole;
  readonly status: MessageStatus;
  /**
   * As the contract's `MessageView.content`, except that a tool row's `tool_result` holds the WHOLE
   * result text (the views cut it to the preview length).
   */
  readonly content: readonly ContentBlock[];
  readonly noticeKind: NoticeKind | null;
  readonly steer: boolean;
  readonly clientMessageId: string | null;
  /** Tool rows: the `tool_use_id` (unique in the session); else null. */
  readonly toolUseId: string | null;
  /** Text and thinking rows: the sidecar's `messageId` they fold; else null. */
  readonly sourceMessageId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type InteractionRecord = Interaction;

export type TaskRecord = Task;

export interface AttachmentRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly turnId: string | null;
  readonly mediaType: ImageMediaType;
  readonly bytes: Uint8Array;
  readonly createdAt: number;
}
