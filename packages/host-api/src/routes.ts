import type { z } from 'zod';
import {
  filePatchQuerySchema,
  filePatchSchema,
  revertBodySchema,
  rewindBodySchema,
  rewindResultSchema,
  sessionChangesSchema,
} from './checkpoints.ts';
import {
  fileCompletionQuerySchema,
  fileCompletionSchema,
  modelCatalogueSchema,
  sessionCommandsSchema,
} from './completions.ts';
import { directoryCompletionQuerySchema, directoryCompletionSchema, recentDirectoriesSchema } from './directories.ts';
import type { HostErrorCode } from './errors.ts';
import { streamQuerySchema } from './events/hostEvents.ts';
import {
  continueHistoryBodySchema,
  historyListQuerySchema,
  historyListSchema,
  historyMessagesQuerySchema,
  historyTranscriptSchema,
} from './history.ts';
import {
  answerInteractionBodySchema,
  answerInteractionResponseSchema,
  interactionListSchema,
  interactionsQuerySchema,
} from './interactions.ts';
import { messagesQuerySchema, toolResultBlockSchema } from './messages.ts';
import {
  archiveSessionBodySchema,
  createSessionBodySchema,
  createSessionResponseSchema,
  deleteSessionBodySchema,
  deleteSessionResponseSchema,
  forkSessionBodySchema,
  forkSessionResponseSchema,
  hostInfoSchema,
  patchSessionBodySchema,
  patchSettingsBodySchema,
  sessionDetailSchema,
  sessionListQuerySchema,
  sessionListSchema,
  sessionSearchQuerySchema,
  sessionSearchSchema,
  sessionSnapshotSchema,
  sessionSummarySchema,
} from './sessions.ts';
import {
  createTaskBodySchema,
  patchTaskBodySchema,
  taskListSchema,
  taskResponseSchema,
  tasksQuerySchema,
} from './tasks.ts';
import {
  cancelTurnBodySchema,
  cancelTurnResponseSchema,
  editQueuedTurnBodySchema,
  emptyBodySchema,
  messagesPageSchema,
  postTurnBodySchema,
  postTurnResponseSchema,
  queuedPromptSchema,
  resumeQueueResponseSchema,
  runQueuedTurnResponseSchema,
} from './turns.ts';
import { worktreeActionBodySchema, worktreeActionResponseSchema, worktreeStatusSchema } from './worktrees.ts';

/** What a route answers on success: JSON, a text/event-stream, or raw bytes with their own content type. */
export type RouteKind = 'json' | 'sse' | 'binary';

export interface RouteDefinition {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Hono-style path; `:name` segments are path parameters. */
  readonly path: string;
  /** Success status. */
  readonly status: 200 | 201 | 202 | 204;
  readonly body?: z.ZodType;
  readonly query?: z.ZodType;
  /** JSON response schema; absent for 204, SSE and binary routes. */
  readonly response?: z.ZodType;
  /** The host picks the route's handler by it. */
  readonly produces: RouteKind;
  /** A `json` route that answers with an SSE stream instead when the request accepts `text/event-stream`. */
  readonly streams?: true;
  /**
   * Every code the route may answer besides `commonRouteErrors`. docs/host-api.md lists the same per route
   * (its test checks), and the route fuzz fails on a code it observes that is not here.
   */
  readonly errors: readonly HostErrorCode[];
  readonly summary: string;
}

/** Codes any route may answer, so they are not repeated per route: the security guards, and a bug. */
export const commonRouteErrors = [
  'unauthorized',
  'forbidden',
  'misdirected_request',
  'internal',
] as const satisfies readonly HostErrorCode[];

// `const`: the paths stay literal types, so each route's path parameters are typed from its path.
const defineRoutes = <const T extends Record<string, RouteDefinition>>(routes: T): T => routes;

/**
 * Every route of the host API. The host validates with these schemas, the client is typed by them,
 * the JSON Schema and docs/host-api.md are generated from / checked against them.
 * All routes need the bearer token or the session cookie.
 */
export const hostRoutes = defineRoutes({
  info: {
    method: 'GET',
    path: '/api/info',
    status: 200,
    response: hostInfoSchema,
    produces: 'json',
    errors: ['validation_failed'],
    summary: 'host version, model backend, defaults and limits',
  },
  createSession: {
    method: 'POST',
    path: '/api/sessions',
    status: 201,
    body: createSessionBodySchema,
    response: createSessionResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'forbidden',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'create a session (`start` in the sidecar)',
  },
  listSessions: {
    method: 'GET',
    path: '/api/sessions',
    status: 200,
    query: sessionListQuerySchema,
    response: sessionListSchema,
    produces: 'json',
    errors: ['validation_failed', 'store_unavailable'],
    summary: 'sessions, newest first, each with its status',
  },
  getSession: {
    method: 'GET',
    path: '/api/sessions/:id',
    status: 200,
    response: sessionSnapshotSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: 'the snapshot of one session, consistent at `lastSeq`',
  },
  renameSession: {
    method: 'PATCH',
    path: '/api/sessions/:id',
    status: 200,
    body: patchSessionBodySchema,
    response: sessionDetailSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
    ],
    summary: 'rename',
  },
  updateSettings: {
    method: 'PATCH',
    path: '/api/sessions/:id/settings',
    status: 200,
    body: patchSettingsBodySchema,
    response: sessionDetailSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'session_closed',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'model, permission mode, plan mode, effort (`apply_settings`)',
  },
  closeSession: {
    method: 'DELETE',
    path: '/api/sessions/:id',
    status: 204,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: 'close in the sidecar; the history stays',
  },
  archiveSession: {
    method: 'POST',
    path: '/api/sessions/:id/archive',
    status: 200,
    body: archiveSessionBodySchema,
    response: sessionSummarySchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
    ],
    summary: 'archive (hidden from the default list) or restore; refused while the session works or waits',
  },
  deleteSession: {
    method: 'POST',
    path: '/api/sessions/:id/delete',
    status: 200,
    body: deleteSessionBodySchema,
    response: deleteSessionResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
    ],
    summary:
      "delete the session's rows, events and checkpoints for good (closed first); refused while it works or waits",
  },
  searchSessions: {
    method: 'GET',
    path: '/api/search/sessions',
    status: 200,
    query: sessionSearchQuerySchema,
    response: sessionSearchSchema,
    produces: 'json',
    errors: ['validation_failed', 'store_unavailable'],
    summary: 'sessions whose title or a prompt contains the text',
  },
  recentDirectories: {
    method: 'GET',
    path: '/api/directories/recent',
    status: 200,
    response: recentDirectoriesSchema,
    produces: 'json',
    errors: ['validation_failed', 'store_unavailable'],
    summary: 'the working directories of past sessions, most recent first',
  },
  completeDirectory: {
    method: 'GET',
    path: '/api/directories',
    status: 200,
    query: directoryCompletionQuerySchema,
    response: directoryCompletionSchema,
    produces: 'json',
    errors: ['validation_failed', 'forbidden', 'not_found'],
    summary: 'the subdirectories a typed path completes to, only inside the allowed roots',
  },
  postTurn: {
    method: 'POST',
    path: '/api/sessions/:id/turns',
    status: 202,
    body: postTurnBodySchema,
    response: postTurnResponseSchema,
    produces: 'json',
    streams: true,
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'session_closed',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'send a prompt: run, queue or steer; with `Accept: text/event-stream` the response is that turn’s stream',
  },
  cancelTurn: {
    method: 'POST',
    path: '/api/sessions/:id/turns/:turnId/cancel',
    status: 200,
    body: cancelTurnBodySchema,
    response: cancelTurnResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'cancel a running turn (the queue behind it pauses), or remove a queued one',
  },
  editQueuedTurn: {
    method: 'PATCH',
    path: '/api/sessions/:id/turns/:turnId',
    status: 200,
    body: editQueuedTurnBodySchema,
    response: queuedPromptSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'session_closed',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
    ],
    summary: 'replace the text of a queued prompt that has not started',
  },
  runQueuedTurn: {
    method: 'POST',
    path: '/api/sessions/:id/turns/:turnId/run',
    status: 200,
    body: emptyBodySchema,
    response: runQueuedTurnResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'session_closed',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'Run now: start a queued (or paused) prompt while no turn runs',
  },
  resumeQueue: {
    method: 'POST',
    path: '/api/sessions/:id/queue/resume',
    status: 200,
    body: emptyBodySchema,
    response: resumeQueueResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'session_closed',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'un-pause the queue: its prompts run in order',
  },
  sessionEvents: {
    method: 'GET',
    path: '/api/sessions/:id/events',
    status: 200,
    query: streamQuerySchema,
    produces: 'sse',
    errors: ['validation_failed', 'not_found'],
    summary: 'SSE of one session; `Last-Event-ID` or `?after=` replays what was missed',
  },
  hostEvents: {
    method: 'GET',
    path: '/api/events',
    status: 200,
    query: streamQuerySchema,
    produces: 'sse',
    errors: ['validation_failed'],
    summary: 'SSE of session-level changes of every session (sidebar, inbox)',
  },
  listMessages: {
    method: 'GET',
    path: '/api/sessions/:id/messages',
    status: 200,
    query: messagesQuerySchema,
    response: messagesPageSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: 'the persisted transcript, newest page first',
  },
  getToolResult: {
    method: 'GET',
    path: '/api/sessions/:id/tool-results/:toolUseId',
    status: 200,
    response: toolResultBlockSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: 'one whole tool result',
  },
  getAttachment: {
    method: 'GET',
    path: '/api/attachments/:attachmentId',
    status: 200,
    produces: 'binary',
    errors: ['not_found', 'store_unavailable'],
    summary: 'an image a user attached',
  },
  forkSession: {
    method: 'POST',
    path: '/api/sessions/:id/fork',
    status: 201,
    body: forkSessionBodySchema,
    response: forkSessionResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'fork at a turn (`fork_session`)',
  },
  listTasks: {
    method: 'GET',
    path: '/api/tasks',
    status: 200,
    query: tasksQuerySchema,
    response: taskListSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: 'tasks of a session (or of all), SDK plan first',
  },
  createTask: {
    method: 'POST',
    path: '/api/tasks',
    status: 201,
    body: createTaskBodySchema,
    response: taskResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'session_closed',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
    ],
    summary: 'add a user task (a closed session takes none)',
  },
  updateTask: {
    method: 'PATCH',
    path: '/api/tasks/:taskId',
    status: 200,
    body: patchTaskBodySchema,
    response: taskResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
    ],
    summary: 'edit a user task (an SDK task answers 409)',
  },
  deleteTask: {
    method: 'DELETE',
    path: '/api/tasks/:taskId',
    status: 204,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'conflict', 'store_unavailable'],
    summary: 'delete a user task (an SDK task answers 409)',
  },
  listInteractions: {
    method: 'GET',
    path: '/api/interactions',
    status: 200,
    query: interactionsQuerySchema,
    response: interactionListSchema,
    produces: 'json',
    errors: ['validation_failed', 'store_unavailable'],
    summary: 'the needs-you inbox across sessions (`?status=pending`)',
  },
  listSessionInteractions: {
    method: 'GET',
    path: '/api/sessions/:id/interactions',
    status: 200,
    query: interactionsQuerySchema,
    response: interactionListSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: 'interactions of one session',
  },
  answerInteraction: {
    method: 'POST',
    path: '/api/sessions/:id/interactions/:requestId',
    status: 200,
    body: answerInteractionBodySchema,
    response: answerInteractionResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'gone',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'answer once: the same answer again is `replayed`, a different one 409',
  },
  listChanges: {
    method: 'GET',
    path: '/api/sessions/:id/changes',
    status: 200,
    response: sessionChangesSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: "every turn's changed files (from its checkpoints) and the session's since its first",
  },
  getFilePatch: {
    method: 'GET',
    path: '/api/sessions/:id/patch',
    status: 200,
    query: filePatchQuerySchema,
    response: filePatchSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'git_unavailable'],
    summary: "one file's unified diff between two checkpoints (or a checkpoint and the working directory)",
  },
  rewind: {
    method: 'POST',
    path: '/api/sessions/:id/rewind',
    status: 200,
    body: rewindBodySchema,
    response: rewindResultSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
      'git_unavailable',
    ],
    summary: 'the files back to before a turn, or to a checkpoint (`dryRun`: only say what would change)',
  },
  revert: {
    method: 'POST',
    path: '/api/sessions/:id/revert',
    status: 200,
    body: revertBodySchema,
    response: rewindResultSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
      'git_unavailable',
    ],
    summary: 'one file of a diff back to its `from` state, or one hunk undone',
  },
  getWorktree: {
    method: 'GET',
    path: '/api/sessions/:id/worktree',
    status: 200,
    response: worktreeStatusSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'git_unavailable'],
    summary: "the session's worktree branch and its changes against the base",
  },
  worktreeAction: {
    method: 'POST',
    path: '/api/sessions/:id/worktree',
    status: 200,
    body: worktreeActionBodySchema,
    response: worktreeActionResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'store_unavailable',
      'git_unavailable',
    ],
    summary: 'merge into the base branch, keep the branch, or discard the worktree and branch',
  },
  listModels: {
    method: 'GET',
    path: '/api/models',
    status: 200,
    response: modelCatalogueSchema,
    produces: 'json',
    errors: ['validation_failed', 'store_unavailable'],
    summary: 'the models Claude Code reported, for a new session',
  },
  listCommands: {
    method: 'GET',
    path: '/api/sessions/:id/commands',
    status: 200,
    response: sessionCommandsSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: 'the slash commands Claude Code reported for the session',
  },
  completeFiles: {
    method: 'GET',
    path: '/api/sessions/:id/files',
    status: 200,
    query: fileCompletionQuerySchema,
    response: fileCompletionSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary: 'file paths under the session’s directory for `@`, `.gitignore` respected, never outside it',
  },
  listHistory: {
    method: 'GET',
    path: '/api/history',
    status: 200,
    query: historyListQuerySchema,
    response: historyListSchema,
    produces: 'json',
    errors: ['validation_failed', 'store_unavailable'],
    summary: 'Claude Code’s sessions on this machine, by project directory (under the allowed roots), searchable',
  },
  historyEvents: {
    method: 'GET',
    path: '/api/history/events',
    status: 200,
    produces: 'sse',
    errors: ['validation_failed'],
    summary: '`history_changed` whenever a transcript is added, grows or goes (not replayed)',
  },
  getHistoryMessages: {
    method: 'GET',
    path: '/api/history/:claudeSessionId/messages',
    status: 200,
    query: historyMessagesQuerySchema,
    response: historyTranscriptSchema,
    produces: 'json',
    errors: ['validation_failed', 'not_found', 'store_unavailable'],
    summary:
      'a page of a Claude Code transcript, in the rows of a live session, read-only, with notes on what it skipped',
  },
  continueHistory: {
    method: 'POST',
    path: '/api/history/:claudeSessionId/continue',
    status: 201,
    body: continueHistoryBodySchema,
    response: createSessionResponseSchema,
    produces: 'json',
    errors: [
      'bad_request',
      'validation_failed',
      'not_found',
      'history_in_use',
      'already_continued',
      'payload_too_large',
      'unsupported_media_type',
      'sidecar_unavailable',
      'store_unavailable',
    ],
    summary: 'an Outrigger session that resumes (or forks) a Claude Code session, in its directory',
  },
});

export type HostRouteName = keyof typeof hostRoutes;
export type RouteBody<N extends HostRouteName> = (typeof hostRoutes)[N] extends { body: infer S extends z.ZodType }
  ? z.input<S>
  : never;
export type RouteResponse<N extends HostRouteName> = (typeof hostRoutes)[N] extends {
  response: infer S extends z.ZodType;
}
  ? z.output<S>
  : undefined;

/** The names of `:name` segments of a path (as Hono's `ParamKeys`): `/a/:id/b/:turnId` gives `'id' | 'turnId'`. */
export type PathParamKeys<P extends string> = P extends `${string}:${infer Rest}`
  ? Rest extends `${infer Key}/${infer Tail}`
    ? Key | PathParamKeys<`/${Tail}`>
    : Rest
  : never;
export type PathParams<P extends string> = { readonly [K in PathParamKeys<P>]: string };
/** A route's path parameters, typed from its path: a misspelled one is a type error. */
export type RouteParams<N extends HostRouteName> = PathParams<(typeof hostRoutes)[N]['path']>;

/** The routes that produce `K`: each of the host's handler tables covers exactly one of these sets. */
export type RoutesOfKind<K extends RouteKind> = {
  [N in HostRouteName]: (typeof hostRoutes)[N]['produces'] extends K ? N : never;
}[HostRouteName];
/** The `json` routes that also answer as a stream (`streams: true`). */
export type StreamingRouteName = {
  [N in HostRouteName]: (typeof hostRoutes)[N] extends { streams: true } ? N : never;
}[HostRouteName];

export function isRouteOfKind<K extends RouteKind>(name: HostRouteName, kind: K): name is RoutesOfKind<K> {
  return hostRoutes[name].produces === kind;
}

export function isStreamingRoute(name: HostRouteName): name is StreamingRouteName {
  const route: RouteDefinition = hostRoutes[name];
  return route.streams === true;
}
