import type {
  AnswerInteractionBody,
  AnswerInteractionResponse,
  CancelTurnBody,
  CancelTurnResponse,
  ContinueHistoryBody,
  CreateSessionBody,
  CreateSessionResponse,
  CreateTaskBody,
  DeleteSessionResponse,
  DirectoryCompletion,
  FileCompletion,
  FilePatch,
  FilePatchQuery,
  ForkSessionBody,
  HistoryChangedEvent,
  HistoryList,
  HistoryMessagesQuery,
  HistoryTranscript,
  HostEvent,
  HostInfo,
  ImageMediaType,
  InteractionList,
  InteractionStatus,
  MessagesPage,
  MessagesQuery,
  ModelCatalogue,
  PatchSettingsBody,
  PatchTaskBody,
  PostTurnBody,
  PostTurnResponse,
  QueuedPrompt,
  RecentDirectories,
  ResumeQueueResponse,
  RevertBody,
  RewindBody,
  RewindResult,
  RunQueuedTurnResponse,
  SessionArchiveFilter,
  SessionChanges,
  SessionCommands,
  SessionDetail,
  SessionEvent,
  SessionList,
  SessionSearch,
  SessionSnapshot,
  SessionSummary,
  Task,
  ToolResultBlock,
  WorktreeActionBody,
  WorktreeActionResponse,
  WorktreeStatus,
} from '@outrigger/host-api';
import type { EventStream } from '../events/eventStream.ts';

/** The history's read routes: served by `history/` beside the session manager (`hostServiceWithHistory.ts`). */
export interface HistoryReads {
  /** Claude Code's sessions under the allowed roots, by directory. */
  listHistory(query: { q?: string | undefined }): Promise<HistoryList>;
  /** `validation_failed` for an id that is no UUID, `not_found` for no readable transcript under the roots. */
  getHistoryMessages(claudeSessionId: string, query: HistoryMessagesQuery): Promise<HistoryTranscript>;
  /** `history_changed` from now on (not replayed); ends with `shutdown` when the host closes. */
  openHistoryStream(): EventStream<HistoryChangedEvent>;
}

/**
 * What the HTTP layer asks of the host, one method per route. Every method validates what the
 * schemas cannot (existence, state), throws `HostError` with the API's code, and returns contract
 * shapes. Events reach clients only after they are committed (persist, then publish).
 */
export interface HostService extends HistoryReads {
  info(): HostInfo;

  createSession(body: CreateSessionBody): Promise<CreateSessionResponse>;
  /** Newest first, with the host stream's seq the list is consistent at (`after=lastSeq` misses nothing). */
  listSessions(options: { includeClosed: boolean; archived: SessionArchiveFilter }): Promise<SessionList>;
  getSnapshot(sessionId: string): Promise<SessionSnapshot>;
  renameSession(sessionId: string, title: string): Promise<SessionDetail>;
  updateSettings(sessionId: string, patch: PatchSettingsBody): Promise<SessionDetail>;
  closeSession(sessionId: string): Promise<void>;
  /** Refused (`conflict`) while the session works or waits, unless restoring. */
  archiveSession(sessionId: string, archived: boolean): Promise<SessionSummary>;
  /** Closes, then removes every row and event of the session and its checkpoints; refused (`conflict`) while it works or waits. */
  deleteSession(sessionId: string): Promise<DeleteSessionResponse>;
  /** Titles and prompts holding `text`, newest first. */
  searchSessions(
    text: string,
    filter: { includeClosed: boolean; archived: SessionArchiveFilter },
  ): Promise<SessionSearch>;
  /** The working directories of past sessions that a new session may still use. */
  recentDirectories(): Promise<RecentDirectories>;
  /** Subdirectories a typed path completes to, only under the completion roots (`forbidden` elsewhere). */
  completeDirectory(prefix: string): Promise<DirectoryCompletion>;
  forkSession(sessionId: string, body: ForkSessionBody): Promise<CreateSessionResponse>;
  /**
   * An Outrigger session that resumes (or forks) a Claude Code session of the history, in its directory:
   * `history_in_use` for a resume of a transcript written in the last minutes unless forced, `already_continued`
   * (naming the session) for a second resume of the same one.
   */
  continueHistory(claudeSessionId: string, body: ContinueHistoryBody): Promise<CreateSessionResponse>;

  postTurn(sessionId: string, body: PostTurnBody): Promise<PostTurnResponse>;
  cancelTurn(sessionId: string, turnId: string, budgets: CancelTurnBody): Promise<CancelTurnResponse>;
  /** A queued prompt's new text; `conflict` once it started. */
  editQueuedTurn(sessionId: string, turnId: string, prompt: string): Promise<QueuedPrompt>;
  /** Run now; `conflict` while another user turn runs. */
  runQueuedTurn(sessionId: string, turnId: string): Promise<RunQueuedTurnResponse>;
  resumeQueue(sessionId: string): Promise<ResumeQueueResponse>;

  listMessages(sessionId: string, query: MessagesQuery): Promise<MessagesPage>;
  getToolResult(sessionId: string, toolUseId: string): Promise<ToolResultBlock>;
  getAttachment(attachmentId: string): Promise<{ mediaType: ImageMediaType; bytes: Uint8Array }>;

  listTasks(sessionId: string | undefined): Promise<Task[]>;
  createTask(body: CreateTaskBody): Promise<Task>;
  updateTask(taskId: string, patch: PatchTaskBody): Promise<Task>;
  deleteTask(taskId: string): Promise<void>;

  /** Oldest first, with the host stream's seq the list is consistent at (its `permission_*` events follow). */
  listInteractions(filter: { sessionId?: string; status?: InteractionStatus }): Promise<InteractionList>;
  answerInteraction(
    sessionId: string,
    requestId: string,
    body: AnswerInteractionBody,
  ): Promise<AnswerInteractionResponse>;

  /** Every turn's changed files from its checkpoints, and the session's since its first. */
  listChanges(sessionId: string): Promise<SessionChanges>;
  getFilePatch(sessionId: string, query: FilePatchQuery): Promise<FilePatch>;
  /** Refused (`conflict`) while a turn runs; a dry run changes nothing. */
  rewind(sessionId: string, body: RewindBody): Promise<RewindResult>;
  revert(sessionId: string, body: RevertBody): Promise<RewindResult>;

  /** `not_found` for a session without a worktree. */
  getWorktree(sessionId: string): Promise<WorktreeStatus>;
  worktreeAction(sessionId: string, body: WorktreeActionBody): Promise<WorktreeActionResponse>;

  /** What Claude Code reported to the newest session that reported models (empty until one did). */
  listModels(): Promise<ModelCatalogue>;
  /** The slash commands Claude Code last reported for the session. */
  listCommands(sessionId: string): Promise<SessionCommands>;
  /** Paths under the session's directory for `@`; never outside it (decided on each entry's real path). */
  completeFiles(sessionId: string, prefix: string): Promise<FileCompletion>;

  /** The seq of the session's last stored event (0: none yet). Throws `not_found` for an unknown session. */
  sessionLastSeq(sessionId: string): Promise<number>;
  /** The session's stream after `afterSeq` (0: from the start). Throws `not_found` for an unknown session. */
  openSessionStream(sessionId: string, afterSeq: number): EventStream<SessionEvent>;
  /** The host-level stream (sidebar, inbox) after `afterSeq`. */
  openHostStream(afterSeq: number): EventStream<HostEvent>;

  /** Stops taking work, ends every stream with `shutdown`, closes the sidecar (reaping its children) and the store. */
  close(): Promise<void>;
}

/** What the session manager serves: every route but the history's reads. */
export type SessionService = Omit<HostService, keyof HistoryReads>;
