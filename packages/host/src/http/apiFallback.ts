import { hostRoutes } from '@outrigger/host-api';
import type { Hono } from 'hono';
import { errorResponse } from './errorResponse.ts';
import type { Env } from './routeContext.ts';

/**
 * Anything else under `/api`: 405 when the path exists with another method, else 404. Mounted after the
 * routes, so it answers only what none of them matched.
 */
export function mountApiFallback(app: Hono<Env>): void {
  const routePatterns = Object.values(hostRoutes).map((route) => ({
    method: route.method,
    pattern: new RegExp(`^${route.path.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`),
  }));
  app.all('/api/*', (c) => {
    const allowed = routePatterns.filter((route) => route.pattern.test(c.req.path)).map((route) => route.method);
    if (allowed.length > 0) {
      return errorResponse('method_not_allowed', `${c.req.method} is not a method of this route`, {
        headers: { allow: [...new Set(allowed)].join(', ') },
      });
    }
    return errorResponse('not_found', 'no such route');
  });
  app.all('/api', () => errorResponse('not_found', 'no such route'));
}
