import { type HostRouteName, hostRoutes, isRouteOfKind, isStreamingRoute, sseTiming } from '@outrigger/host-api';
import { type Context, Hono } from 'hono';
import type { HostLogger } from '../logging/hostLogger.ts';
import type { HostService } from '../service/hostService.ts';
import { mountApiFallback } from './apiFallback.ts';
import { binaryHandlers } from './binaryRoutes.ts';
import { securityHeaders } from './contentSecurityPolicy.ts';
import { errorResponse } from './errorResponse.ts';
import { jsonRoute } from './jsonRoute.ts';
import { answerThrown, requestLog } from './requestLog.ts';
import { type Env, paramsOf, type RouteContext, type RouteHandler } from './routeContext.ts';
import { type SecurityOptions, securityMiddleware } from './security.ts';
import { mountStaticUi } from './staticUi.ts';
import { acceptsEventStream, sseHandlers, turnStreamHandlers } from './streamRoutes.ts';

export interface HostAppOptions {
  service: HostService;
  security: SecurityOptions;
  logger: HostLogger;
  /** `packages/web/dist`; absent or unbuilt: a page that says how to build it. */
  webDist?: string;
  /** Heartbeat period of every SSE stream (tests shorten it). */
  heartbeatMs?: number;
  /**
   * Check every JSON response and SSE payload against the contract. On in tests (a wrong shape answers 500
   * and logs `http.response_invalid`); off in production, where the schemas already shaped the data.
   */
  validateResponses?: boolean;
}

type Mounted = (c: Context<Env>) => Promise<Response>;

/** The host's HTTP app: the routes of `hostRoutes` over a `HostService`, behind the security guards. */
export function createHostApp(options: HostAppOptions): Hono<Env> {
  const app = new Hono<Env>();
  app.onError(answerThrown(options.logger));
  app.use('*', securityHeaders);
  app.use('*', requestLog(options.logger));
  app.use('*', securityMiddleware(options.security));
  const context: RouteContext = {
    service: options.service,
    logger: options.logger,
    heartbeatMs: options.heartbeatMs ?? sseTiming.heartbeatMs,
    validateResponses: options.validateResponses === true,
  };
  for (const name of Object.keys(hostRoutes) as HostRouteName[]) {
    const route = hostRoutes[name];
    app.on(route.method, route.path, handlerOf(name, context));
  }
  mountApiFallback(app);
  mountStaticUi(app, options.webDist);
  // Outside /api too (a POST to a page path, a missing asset): the one error shape, never Hono's text 404.
  app.notFound(() => errorResponse('not_found', 'no such route'));
  return app;
}

/** A route is answered from the handler table of what it produces (`produces`, and `streams` for JSON). */
function handlerOf(name: HostRouteName, context: RouteContext): Mounted {
  if (isRouteOfKind(name, 'sse')) return mounted(sseHandlers[name], context);
  if (isRouteOfKind(name, 'binary')) return mounted(binaryHandlers[name], context);
  if (isRouteOfKind(name, 'json')) {
    const json = mounted(jsonRoute(name), context);
    if (!isStreamingRoute(name)) return json;
    const stream = mounted(turnStreamHandlers[name], context);
    return (c) => (acceptsEventStream(c) ? stream(c) : json(c));
  }
  return unknownKind(name);
}

function mounted<N extends HostRouteName>(handler: RouteHandler<N>, context: RouteContext): Mounted {
  return (c) => handler(c, paramsOf<N>(c), context);
}

/** Compiles only while every kind has its table above. */
function unknownKind(name: never): never {
  throw new Error(`the route ${String(name)} produces nothing the host answers`);
}
