import { hostRoutes, type RouteDefinition } from '@outrigger/host-api';
import { z } from 'zod';
import type { HostLogger } from '../logging/hostLogger.ts';
import { readJsonBody, readQuery } from './requestInput.ts';
import { bodyOf, type RouteHandler } from './routeContext.ts';
import { bodyLimitOf, type HandlerInput, type JsonRouteName, jsonHandlers } from './routeHandlers.ts';

const noQuery = z.strictObject({});

/** A JSON route: its input read and validated, its handler called, the result answered with the route's status. */
export function jsonRoute<N extends JsonRouteName>(name: N): RouteHandler<N> {
  const route: RouteDefinition = hostRoutes[name];
  const handler = jsonHandlers[name];
  return async (c, params, context) => {
    const input = {
      params,
      body:
        route.body === undefined ? undefined : await readJsonBody(c.req.raw, route.body, bodyLimitOf(name), bodyOf(c)),
      // A route without a query schema takes no query: an unknown name is refused, not ignored.
      query: readQuery(new URL(c.req.url), route.query ?? noQuery),
    };
    // The route's own schemas produced the body and the query, so they have its types.
    const result = await handler(context.service, input as HandlerInput<N>);
    if (route.status === 204) return c.body(null, 204);
    if (context.validateResponses && route.response !== undefined) {
      checkResponse(context.logger, name, route.response, result);
    }
    return c.json(result as object, route.status, { 'cache-control': 'no-store' });
  };
}

function checkResponse(logger: HostLogger, name: string, schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (parsed.success) return;
  logger.error('http.response_invalid', {
    route: name,
    diagnostic: parsed.error.issues.slice(0, 10).map((issue) => ({ path: issue.path.join('.'), code: issue.code })),
  });
  throw new Error(`the ${name} response does not match the contract`);
}
