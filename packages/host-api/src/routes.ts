import type { z } from 'zod';
import { streamQuerySchema } from './events/hostEvents.ts';
import {
  answerInteractionBodySchema,
  answerInteractionResponseSchema,
  interactionListSchema,
  interactionsQuerySchema,
} from './interactions.ts';
import { messagesQuerySchema, toolResultBlockSchema } from './messages.ts';
import {
  createSessionBodySchema,
  createSessionResponseSchema,
  forkSessionBodySchema,
  forkSessionResponseSchema,
  hostInfoSchema,
  patchSessionBodySchema,
  patchSettingsBodySchema,
  sessionDetailSchema,
  sessionListQuerySchema,
  sessionListSchema,
  sessionSnapshotSchema,
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
  messagesPageSchema,
  postTurnBodySchema,
  postTurnResponseSchema,
} from './turns.ts';

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
  /** `sse`: a text/event-stream; `binary`: raw bytes with their own content type. */
  readonly produces?: 'json' | 'sse' | 'binary';
  readonly summary: string;
}

const defineRoutes = <T extends Record<string, RouteDefinition>>(routes: T): T => routes;

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
    summary: 'host version, model backend, defaults and limits',
  },
  createSession: {
    method: 'POST',
    path: '/api/sessions',
    status: 201,
    body: createSessionBodySchema,
    response: createSessionResponseSchema,
    summary: 'create a session (`start` in the sidecar)',
  },
  listSessions: {
    method: 'GET',
    path: '/api/sessions',
    status: 200,
    query: sessionListQuerySchema,
    response: sessionListSchema,
    summary: 'sessions, newest first, each with its status',
  },
  getSession: {
    method: 'GET',
    path: '/api/sessions/:id',
    status: 200,
    response: sessionSnapshotSchema,
    summary: 'the snapshot of one session, consistent at `lastSeq`',
  },
  renameSession: {
    method: 'PATCH',
    path: '/api/sessions/:id',
    status: 200,
    body: patchSessionBodySchema,
    response: sessionDetailSchema,
    summary: 'rename',
  },
  updateSettings: {
    method: 'PATCH',
    path: '/api/sessions/:id/settings',
    status: 200,
    body: patchSettingsBodySchema,
    response: sessionDetailSchema,
    summary: 'model, permission mode, plan mode, effort (`apply_settings`)',
  },
  closeSession: {
    method: 'DELETE',
    path: '/api/sessions/:id',
    status: 204,
    summary: 'close in the sidecar; the history stays',
  },
  postTurn: {
    method: 'POST',
    path: '/api/sessions/:id/turns',
    status: 202,
    body: postTurnBodySchema,
    response: postTurnResponseSchema,
    summary: 'send a prompt: run, queue or steer; with `Accept: text/event-stream` the response is that turn’s stream',
  },
  cancelTurn: {
    method: 'POST',
    path: '/api/sessions/:id/turns/:turnId/cancel',
    status: 200,
    body: cancelTurnBodySchema,
    response: cancelTurnResponseSchema,
    summary: 'cancel a running turn, or remove a queued one',
  },
  sessionEvents: {
    method: 'GET',
    path: '/api/sessions/:id/events',
    status: 200,
    query: streamQuerySchema,
    produces: 'sse',
    summary: 'SSE of one session; `Last-Event-ID` or `?after=` replays what was missed',
  },
  hostEvents: {
    method: 'GET',
    path: '/api/events',
    status: 200,
    query: streamQuerySchema,
    produces: 'sse',
    summary: 'SSE of session-level changes of every session (sidebar, inbox)',
  },
  listMessages: {
    method: 'GET',
    path: '/api/sessions/:id/messages',
    status: 200,
    query: messagesQuerySchema,
    response: messagesPageSchema,
    summary: 'the persisted transcript, newest page first',
  },
  getToolResult: {
    method: 'GET',
    path: '/api/sessions/:id/tool-results/:toolUseId',
    status: 200,
    response: toolResultBlockSchema,
    summary: 'one whole tool result',
  },
  getAttachment: {
    method: 'GET',
    path: '/api/attachments/:attachmentId',
    status: 200,
    produces: 'binary',
    summary: 'an image a user attached',
  },
  forkSession: {
    method: 'POST',
    path: '/api/sessions/:id/fork',
    status: 201,
    body: forkSessionBodySchema,
    response: forkSessionResponseSchema,
    summary: 'fork at a turn (`fork_session`)',
  },
  listTasks: {
    method: 'GET',
    path: '/api/tasks',
    status: 200,
    query: tasksQuerySchema,
    response: taskListSchema,
    summary: 'tasks of a session (or of all), SDK plan first',
  },
  createTask: {
    method: 'POST',
    path: '/api/tasks',
    status: 201,
    body: createTaskBodySchema,
    response: taskResponseSchema,
    summary: 'add a user task',
  },
  updateTask: {
    method: 'PATCH',
    path: '/api/tasks/:taskId',
    status: 200,
    body: patchTaskBodySchema,
    response: taskResponseSchema,
    summary: 'edit a user task (an SDK task answers 409)',
  },
  deleteTask: {
    method: 'DELETE',
    path: '/api/tasks/:taskId',
    status: 204,
    summary: 'delete a user task (an SDK task answers 409)',
  },
  listInteractions: {
    method: 'GET',
    path: '/api/interactions',
    status: 200,
    query: interactionsQuerySchema,
    response: interactionListSchema,
    summary: 'the needs-you inbox across sessions (`?status=pending`)',
  },
  listSessionInteractions: {
    method: 'GET',
    path: '/api/sessions/:id/interactions',
    status: 200,
    query: interactionsQuerySchema,
    response: interactionListSchema,
    summary: 'interactions of one session',
  },
  answerInteraction: {
    method: 'POST',
    path: '/api/sessions/:id/interactions/:requestId',
    status: 200,
    body: answerInteractionBodySchema,
    response: answerInteractionResponseSchema,
    summary: 'answer once: the same answer again is `replayed`, a different one 409',
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
