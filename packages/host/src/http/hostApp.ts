import type { ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import {
  type HostEvent,
  type HostRouteName,
  hostEventPayloadSchemas,
  hostRoutes,
  type SessionEvent,
  sessionEventPayloadSchemas,
  sseTiming,
} from '@outrigger/host-api';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { HostError } from '../hostError.ts';
import type { HostLogger } from '../logging/hostLogger.ts';
import type { EventStream, HostService } from '../service/hostService.ts';
import { SECURITY_HEADERS } from './contentSecurityPolicy.ts';
import { errorResponse, thrownErrorResponse } from './errorResponse.ts';
import { readJsonBody, readQuery } from './requestInput.ts';
import { bodyLimitOf, type JsonRouteName, jsonHandlers } from './routeHandlers.ts';
import { type SecurityOptions, securityMiddleware } from './security.ts';
import { eventFrame, pumpSse, type SseSource, sseFrame } from './sseResponse.ts';
import { mountStaticUi } from './staticUi.ts';

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

type Env = { Bindings: HttpBindings };

/** The host's HTTP app: the routes of `hostRoutes` over a `HostService`, behind the security guards. */
export function createHostApp(options: HostAppOptions): Hono<Env> {
  const { service, logger } = options;
  const heartbeatMs = options.heartbeatMs ?? sseTiming.heartbeatMs;
  const app = new Hono<Env>();

  app.onError((error, c) => {
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
  });

  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    // An SSE stream was written to the node response itself (with its own headers); the marker is shared.
    if (c.res !== RESPONSE_ALREADY_SENT) {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
    }
    const status = c.res.status;
    const fields = {
      method: c.req.method,
      route: c.req.routePath,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
    if (status >= 500) logger.error('http.request', fields);
    else logger.debug('http.request', fields);
  });

  app.use('*', securityMiddleware(options.security));

  for (const [name, route] of Object.entries(hostRoutes) as [HostRouteName, (typeof hostRoutes)[HostRouteName]][]) {
    app.on(route.method, route.path, async (c) => {
      if (name === 'sessionEvents' || name === 'hostEvents') return streamEvents(c, name);
      if (name === 'getAttachment') return attachment(c);
      if (name === 'postTurn' && acceptsEventStream(c)) return postTurnStream(c);
      return json(c, name);
    });
  }

  /** Anything else under `/api`: 405 when the path exists with another method, else 404. */
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

  mountStaticUi(app, options.webDist);
  // Outside /api too (a POST to a page path, a missing asset): the one error shape, never Hono's text 404.
  app.notFound(() => errorResponse('not_found', 'no such route'));

  async function json(c: Context<Env>, name: JsonRouteName): Promise<Response> {
    const route = hostRoutes[name];
    const input = {
      params: c.req.param() as Record<string, string>,
      body: 'body' in route ? await readJsonBody(c.req.raw, route.body, bodyLimitOf(name), bodyOf(c)) : undefined,
      // A route without a query schema takes no query: an unknown name is refused, not ignored.
      query: readQuery(new URL(c.req.url), 'query' in route ? route.query : noQuery),
    };
    const handler = jsonHandlers[name] as (service: HostService, input: unknown) => Promise<unknown>;
    const result = await handler(service, input);
    if (route.status === 204) return c.body(null, 204);
    if (options.validateResponses === true && 'response' in route) checkResponse(name, route.response, result);
    return c.json(result as object, route.status, { 'cache-control': 'no-store' });
  }

  function checkResponse(name: string, schema: z.ZodType, value: unknown): void {
    const parsed = schema.safeParse(value);
    if (parsed.success) return;
    logger.error('http.response_invalid', {
      route: name,
      diagnostic: parsed.error.issues.slice(0, 10).map((issue) => ({ path: issue.path.join('.'), code: issue.code })),
    });
    throw new Error(`the ${name} response does not match the contract`);
  }

  async function attachment(c: Context<Env>): Promise<Response> {
    const { mediaType, bytes } = await service.getAttachment(c.req.param('attachmentId') ?? '');
    return new Response(bytes, {
      status: 200,
      headers: {
        'content-type': mediaType,
        'content-length': String(bytes.byteLength),
        'cache-control': 'private, max-age=31536000, immutable',
        'content-disposition': 'inline',
      },
    });
  }

  /** The request's bytes: the node request where there is one (see `readJsonBody`). */
  function bodyOf(c: Context<Env>): AsyncIterable<Uint8Array> | null {
    return c.env?.incoming ?? c.req.raw.body;
  }

  function nodeResponse(c: Context<Env>): ServerResponse {
    const outgoing = c.env?.outgoing;
    if (outgoing === undefined) throw new Error('SSE routes need the node server (c.env.outgoing)');
    return outgoing;
  }

  /** `Last-Event-ID` wins over `?after=`; both absent: from the start of the log. */
  function afterSeqOf(c: Context<Env>): number {
    const { after } = readQuery(new URL(c.req.url), hostRoutes.sessionEvents.query);
    const header = c.req.header('last-event-id');
    if (header === undefined || header.trim() === '') return after ?? 0;
    if (!/^\d+$/.test(header.trim())) {
      throw new HostError('validation_failed', 'Last-Event-ID must be a sequence number', [
        { path: 'Last-Event-ID', message: 'expected a non-negative integer' },
      ]);
    }
    return Number(header.trim());
  }

  async function streamEvents(c: Context<Env>, name: 'sessionEvents' | 'hostEvents'): Promise<Response> {
    const afterSeq = afterSeqOf(c);
    const response = nodeResponse(c);
    const stream: EventStream<SessionEvent | HostEvent> =
      name === 'sessionEvents'
        ? service.openSessionStream(c.req.param('id') ?? '', afterSeq)
        : service.openHostStream(afterSeq);
    const schemas = name === 'sessionEvents' ? sessionEventPayloadSchemas : hostEventPayloadSchemas;
    const reason = await pumpSse(
      response,
      eventSource(stream, schemas, () => false),
      { heartbeatMs },
    );
    logger.debug('sse.ended', { stream: name, afterSeq, endReason: reason });
    return RESPONSE_ALREADY_SENT;
  }

  /**
   * `POST …/turns` with `Accept: text/event-stream`: the turn's own events until its `done`. The log position
   * is taken before the turn is posted, so nothing the turn publishes can be missed; a replayed POST (same
   * `clientMessageId`) reads its turn from the start of the log. The first frame, `accepted` (no id, not
   * stored), is the JSON answer of the POST.
   */
  async function postTurnStream(c: Context<Env>): Promise<Response> {
    const sessionId = c.req.param('id') ?? '';
    const body = await readJsonBody(c.req.raw, hostRoutes.postTurn.body, bodyLimitOf('postTurn'), bodyOf(c));
    const response = nodeResponse(c);
    const lastSeq = await service.sessionLastSeq(sessionId);
    const accepted = await service.postTurn(sessionId, body);
    const stream = service.openSessionStream(sessionId, accepted.replayed ? 0 : lastSeq);
    const ofTurn = (event: SessionEvent) => 'turnId' in event.data && event.data.turnId === accepted.turnId;
    const isDone = (event: SessionEvent) => ofTurn(event) && event.type === 'done';
    const source = eventSource(stream, sessionEventPayloadSchemas, isDone, ofTurn);
    const reason = await pumpSse(response, source, { heartbeatMs, prelude: sseFrame('accepted', accepted) });
    logger.debug('sse.ended', { stream: 'postTurn', sessionId, turnId: accepted.turnId, endReason: reason });
    return RESPONSE_ALREADY_SENT;
  }

  function eventSource<E extends SessionEvent | HostEvent>(
    stream: EventStream<E>,
    schemas: Readonly<Record<string, z.ZodType>>,
    isLast: (event: E) => boolean,
    keep: (event: E) => boolean = () => true,
  ): SseSource<E> {
    const validate = options.validateResponses === true;
    // The pump reads the hub's stream itself: no async layer in between (it runs per event per client).
    return {
      items: stream,
      frame: (event) => {
        if (!keep(event)) return undefined;
        if (validate) checkEvent(event, schemas);
        return eventFrame(event);
      },
      isLast: (event) => keep(event) && isLast(event),
      ended: stream.ended,
      close: () => stream.close(),
    };
  }

  function checkEvent(event: SessionEvent | HostEvent, schemas: Readonly<Record<string, z.ZodType>>): void {
    const parsed = schemas[event.type]?.safeParse(event.data);
    if (parsed === undefined || !parsed.success) {
      logger.error('sse.event_invalid', {
        type: event.type,
        seq: event.data.seq,
        diagnostic: parsed?.error.issues
          .slice(0, 10)
          .map((issue) => ({ path: issue.path.join('.'), code: issue.code })),
      });
    }
  }

  return app;
}

const noQuery = z.strictObject({});

function acceptsEventStream(c: Context): boolean {
  return (c.req.header('accept') ?? '').toLowerCase().includes('text/event-stream');
}
