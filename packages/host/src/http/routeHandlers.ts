import { type HostRouteName, hostLimits, type hostRoutes } from '@outrigger/host-api';
import type { z } from 'zod';
import type { HostService } from '../service/hostService.ts';

type RouteOf<N extends HostRouteName> = (typeof hostRoutes)[N];
type BodyOf<N extends HostRouteName> = RouteOf<N> extends { body: infer S extends z.ZodType } ? z.output<S> : undefined;
type QueryOf<N extends HostRouteName> =
  RouteOf<N> extends { query: infer S extends z.ZodType } ? z.output<S> : undefined;

export interface HandlerInput<N extends HostRouteName> {
  params: Record<string, string>;
  body: BodyOf<N>;
  query: QueryOf<N>;
}

/** The JSON routes: each is one `HostService` call, shaped into the route's response. */
export type JsonRouteName = Exclude<HostRouteName, 'sessionEvents' | 'hostEvents' | 'getAttachment'>;

export type JsonHandlers = { [N in JsonRouteName]: (service: HostService, input: HandlerInput<N>) => Promise<unknown> };

export const jsonHandlers: JsonHandlers = {
  info: async (service) => service.info(),
  createSession: (service, { body }) => service.createSession(body),
  listSessions: (service, { query }) =>
    service.listSessions({ includeClosed: query.includeClosed === '1' || query.includeClosed === 'true' }),
  getSession: (service, { params }) => service.getSnapshot(param(params, 'id')),
  renameSession: (service, { params, body }) => service.renameSession(param(params, 'id'), body.title),
  updateSettings: (service, { params, body }) => service.updateSettings(param(params, 'id'), body),
  closeSession: (service, { params }) => service.closeSession(param(params, 'id')),
  postTurn: (service, { params, body }) => service.postTurn(param(params, 'id'), body),
  cancelTurn: (service, { params, body }) => service.cancelTurn(param(params, 'id'), param(params, 'turnId'), body),
  listMessages: (service, { params, query }) => service.listMessages(param(params, 'id'), query),
  getToolResult: (service, { params }) => service.getToolResult(param(params, 'id'), param(params, 'toolUseId')),
  forkSession: (service, { params, body }) => service.forkSession(param(params, 'id'), body),
  listTasks: async (service, { query }) => ({ tasks: await service.listTasks(query.session_id) }),
  createTask: async (service, { body }) => ({ task: await service.createTask(body) }),
  updateTask: async (service, { params, body }) => ({ task: await service.updateTask(param(params, 'taskId'), body) }),
  deleteTask: (service, { params }) => service.deleteTask(param(params, 'taskId')),
  listInteractions: (service, { query }) =>
    service.listInteractions(query.status === undefined ? {} : { status: query.status }),
  listSessionInteractions: (service, { params, query }) =>
    service.listInteractions({
      sessionId: param(params, 'id'),
      ...(query.status === undefined ? {} : { status: query.status }),
    }),
  answerInteraction: (service, { params, body }) =>
    service.answerInteraction(param(params, 'id'), param(params, 'requestId'), body),
};

/** A turn may carry images; every other body is small. */
export function bodyLimitOf(name: HostRouteName): number {
  return name === 'postTurn' ? hostLimits.maxTurnBodyBytes : hostLimits.maxBodyBytes;
}

function param(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (value === undefined) throw new Error(`route parameter ${name} is missing`);
  return value;
}
