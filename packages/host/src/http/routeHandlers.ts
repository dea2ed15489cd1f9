import {
  type HostRouteName,
  hostLimits,
  type hostRoutes,
  type RouteParams,
  type RoutesOfKind,
} from '@outrigger/host-api';
import type { z } from 'zod';
import type { HostService } from '../service/hostService.ts';

type RouteOf<N extends HostRouteName> = (typeof hostRoutes)[N];
type BodyOf<N extends HostRouteName> = RouteOf<N> extends { body: infer S extends z.ZodType } ? z.output<S> : undefined;
type QueryOf<N extends HostRouteName> =
  RouteOf<N> extends { query: infer S extends z.ZodType } ? z.output<S> : undefined;

export interface HandlerInput<N extends HostRouteName> {
  params: RouteParams<N>;
  body: BodyOf<N>;
  query: QueryOf<N>;
}

export type JsonRouteName = RoutesOfKind<'json'>;

/**
 * The JSON routes: each is one `HostService` call, shaped into the route's response. Mapped over the `json`
 * routes, so a route added to `hostRoutes` without its handler here (or one of another kind) does not compile.
 */
export type JsonHandlers = { [N in JsonRouteName]: (service: HostService, input: HandlerInput<N>) => Promise<unknown> };

export const jsonHandlers: JsonHandlers = {
  info: async (service) => service.info(),
  createSession: (service, { body }) => service.createSession(body),
  listSessions: (service, { query }) =>
    service.listSessions({
      includeClosed: query.includeClosed === '1' || query.includeClosed === 'true',
      archived: query.archived ?? 'exclude',
    }),
  getSession: (service, { params }) => service.getSnapshot(params.id),
  renameSession: (service, { params, body }) => service.renameSession(params.id, body.title),
  updateSettings: (service, { params, body }) => service.updateSettings(params.id, body),
  closeSession: (service, { params }) => service.closeSession(params.id),
  archiveSession: (service, { params, body }) => service.archiveSession(params.id, body.archived),
  deleteSession: (service, { params }) => service.deleteSession(params.id),
  searchSessions: (service, { query }) =>
    service.searchSessions(query.q, {
      includeClosed: query.includeClosed !== '0' && query.includeClosed !== 'false',
      archived: query.archived ?? 'include',
    }),
  recentDirectories: (service) => service.recentDirectories(),
  completeDirectory: (service, { query }) => service.completeDirectory(query.prefix),
  postTurn: (service, { params, body }) => service.postTurn(params.id, body),
  cancelTurn: (service, { params, body }) => service.cancelTurn(params.id, params.turnId, body),
  editQueuedTurn: (service, { params, body }) => service.editQueuedTurn(params.id, params.turnId, body.prompt),
  runQueuedTurn: (service, { params }) => service.runQueuedTurn(params.id, params.turnId),
  resumeQueue: (service, { params }) => service.resumeQueue(params.id),
  listMessages: (service, { params, query }) => service.listMessages(params.id, query),
  getToolResult: (service, { params }) => service.getToolResult(params.id, params.toolUseId),
  forkSession: (service, { params, body }) => service.forkSession(params.id, body),
  listHistory: (service, { query }) => service.listHistory(query),
  getHistoryMessages: (service, { params, query }) => service.getHistoryMessages(params.claudeSessionId, query),
  continueHistory: (service, { params, body }) => service.continueHistory(params.claudeSessionId, body),
  listTasks: async (service, { query }) => ({ tasks: await service.listTasks(query.session_id) }),
  createTask: async (service, { body }) => ({ task: await service.createTask(body) }),
  updateTask: async (service, { params, body }) => ({ task: await service.updateTask(params.taskId, body) }),
  deleteTask: (service, { params }) => service.deleteTask(params.taskId),
  listInteractions: (service, { query }) =>
    service.listInteractions(query.status === undefined ? {} : { status: query.status }),
  listSessionInteractions: (service, { params, query }) =>
    service.listInteractions({
      sessionId: params.id,
      ...(query.status === undefined ? {} : { status: query.status }),
    }),
  answerInteraction: (service, { params, body }) => service.answerInteraction(params.id, params.requestId, body),
  listChanges: (service, { params }) => service.listChanges(params.id),
  getFilePatch: (service, { params, query }) => service.getFilePatch(params.id, query),
  rewind: (service, { params, body }) => service.rewind(params.id, body),
  revert: (service, { params, body }) => service.revert(params.id, body),
  getWorktree: (service, { params }) => service.getWorktree(params.id),
  worktreeAction: (service, { params, body }) => service.worktreeAction(params.id, body),
  listModels: (service) => service.listModels(),
  listCommands: (service, { params }) => service.listCommands(params.id),
  completeFiles: (service, { params, query }) => service.completeFiles(params.id, query.prefix ?? ''),
};

/** A turn may carry images; every other body is small. */
export function bodyLimitOf(name: HostRouteName): number {
  return name === 'postTurn' ? hostLimits.maxTurnBodyBytes : hostLimits.maxBodyBytes;
}
