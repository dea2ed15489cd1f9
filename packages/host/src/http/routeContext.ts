import type { HttpBindings } from '@hono/node-server';
import type { HostRouteName, RouteParams } from '@outrigger/host-api';
import type { Context } from 'hono';
import type { HostLogger } from '../logging/hostLogger.ts';
import type { HostService } from '../service/hostService.ts';

export type Env = { Bindings: HttpBindings };

/** What every route handler works with, made once per app from its options. */
export interface RouteContext {
  readonly service: HostService;
  readonly logger: HostLogger;
  /** Heartbeat period of every SSE stream. */
  readonly heartbeatMs: number;
  /** Check responses and SSE payloads against the contract (`HostAppOptions.validateResponses`). */
  readonly validateResponses: boolean;
}

/** A handler of route `N`: its path parameters are typed from its path, so a misspelled one does not compile. */
export type RouteHandler<N extends HostRouteName> = (
  c: Context<Env>,
  params: RouteParams<N>,
  context: RouteContext,
) => Promise<Response>;

/** The matched route's path parameters: the router fills exactly the names its path has. */
export function paramsOf<N extends HostRouteName>(c: Context<Env>): RouteParams<N> {
  return c.req.param() as RouteParams<N>;
}

/** The request's bytes: the node request where there is one (see `readJsonBody`). */
export function bodyOf(c: Context<Env>): AsyncIterable<Uint8Array> | null {
  return c.env?.incoming ?? c.req.raw.body;
}
