import type { ErrorHandler, MiddlewareHandler } from 'hono';
import { HostError } from '../hostError.ts';
import type { HostLogger } from '../logging/hostLogger.ts';
import { thrownErrorResponse } from './errorResponse.ts';
import type { Env } from './routeContext.ts';

/** One `http.request` record per request; a 5xx is an error, so a bug is seen at the default level. */
export function requestLog(logger: HostLogger): MiddlewareHandler<Env> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const fields = {
      method: c.req.method,
      route: c.req.routePath,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
    if (status >= 500) logger.error('http.request', fields);
    else logger.debug('http.request', fields);
  };
}

/** What a handler threw, answered (`thrownErrorResponse`); anything but a `HostError` is a bug, logged with its stack. */
export function answerThrown(logger: HostLogger): ErrorHandler<Env> {
  return (error, c) => {
    if (!(error instanceof HostError)) {
      logger.error('http.internal_error', {
        method: c.req.method,
        route: c.req.routePath,
        errorName: error.name,
        // The stack's frames only: its first line is the message, which may quote a request.
        stack: error.stack?.split('\n').slice(1, 12).join('\n'),
      });
    }
    return thrownErrorResponse(error);
  };
}
