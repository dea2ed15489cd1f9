import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import {
  type HostEvent,
  historyChangedEventSchema,
  hostEventPayloadSchemas,
  hostRoutes,
  type RoutesOfKind,
  type SessionEvent,
  type StreamingRouteName,
  sessionEventPayloadSchemas,
} from '@outrigger/host-api';
import type { Context } from 'hono';
import { z } from 'zod';
import type { EventStream } from '../events/eventStream.ts';
import { HostError } from '../hostError.ts';
import { readJsonBody, readQuery } from './requestInput.ts';
import { bodyOf, type Env, type RouteContext, type RouteHandler } from './routeContext.ts';
import { bodyLimitOf } from './routeHandlers.ts';
import { eventFrame, pumpSse, type SseSource, sseFrame } from './sseResponse.ts';

type PayloadSchemas = Readonly<Record<string, z.ZodType>>;

/** The `sse` routes: an event log followed from a position (mapped over them, like every handler table). */
export const sseHandlers: { [N in RoutesOfKind<'sse'>]: RouteHandler<N> } = {
  sessionEvents: (c, { id }, context) =>
    streamEvents(c, context, 'sessionEvents', sessionEventPayloadSchemas, (afterSeq) =>
      context.service.openSessionStream(id, afterSeq),
    ),
  hostEvents: (c, _params, context) =>
    streamEvents(c, context, 'hostEvents', hostEventPayloadSchemas, (afterSeq) =>
      context.service.openHostStream(afterSeq),
    ),
  historyEvents: historyEventStream,
};

const noQuery = z.strictObject({});

/**
 * `GET /api/history/events`: `history_changed` frames without an `id:` (nothing is replayed: a client that
 * reconnects refetches what it shows), with the heartbeats of every stream.
 */
async function historyEventStream(c: Context<Env>, _params: unknown, context: RouteContext): Promise<Response> {
  readQuery(new URL(c.req.url), noQuery);
  const response = nodeResponse(c);
  const stream = context.service.openHistoryStream();
  const reason = await pumpSse(
    response,
    {
      items: stream,
      frame: (event) => {
        if (context.validateResponses && !historyChangedEventSchema.safeParse(event).success) {
          context.logger.error('sse.event_invalid', { type: 'history_changed' });
        }
        return sseFrame('history_changed', event);
      },
      isLast: () => false,
      ended: stream.ended,
      close: () => stream.close(),
    },
    { heartbeatMs: context.heartbeatMs },
  );
  context.logger.debug('sse.ended', { stream: 'historyEvents', endReason: reason });
  return RESPONSE_ALREADY_SENT;
}

/** The `json` routes that answer as a stream when asked to (`streams: true`). */
export const turnStreamHandlers: { [N in StreamingRouteName]: RouteHandler<N> } = {
  postTurn: postTurnStream,
};

export function acceptsEventStream(c: Context): boolean {
  return (c.req.header('accept') ?? '').toLowerCase().includes('text/event-stream');
}

async function streamEvents<E extends SessionEvent | HostEvent>(
  c: Context<Env>,
  context: RouteContext,
  name: RoutesOfKind<'sse'>,
  schemas: PayloadSchemas,
  open: (afterSeq: number) => EventStream<E>,
): Promise<Response> {
  const afterSeq = afterSeqOf(c);
  const response = nodeResponse(c);
  const stream = open(afterSeq);
  const reason = await pumpSse(
    response,
    eventSource(context, stream, schemas, () => false),
    { heartbeatMs: context.heartbeatMs },
  );
  context.logger.debug('sse.ended', { stream: name, afterSeq, endReason: reason });
  return RESPONSE_ALREADY_SENT;
}

/**
 * `POST …/turns` with `Accept: text/event-stream`: the turn's own events until its `done`. The log position
 * is taken before the turn is posted, so nothing the turn publishes can be missed; a replayed POST (same
 * `clientMessageId`) reads its turn from the start of the log. The first frame, `accepted` (no id, not
 * stored), is the JSON answer of the POST.
 */
async function postTurnStream(
  c: Context<Env>,
  { id: sessionId }: { readonly id: string },
  context: RouteContext,
): Promise<Response> {
  const { service } = context;
  const body = await readJsonBody(c.req.raw, hostRoutes.postTurn.body, bodyLimitOf('postTurn'), bodyOf(c));
  const response = nodeResponse(c);
  const lastSeq = await service.sessionLastSeq(sessionId);
  const accepted = await service.postTurn(sessionId, body);
  const stream = service.openSessionStream(sessionId, accepted.replayed ? 0 : lastSeq);
  const ofTurn = (event: SessionEvent) => 'turnId' in event.data && event.data.turnId === accepted.turnId;
  const isDone = (event: SessionEvent) => ofTurn(event) && event.type === 'done';
  const source = eventSource(context, stream, sessionEventPayloadSchemas, isDone, ofTurn);
  const reason = await pumpSse(response, source, {
    heartbeatMs: context.heartbeatMs,
    prelude: sseFrame('accepted', accepted),
  });
  context.logger.debug('sse.ended', { stream: 'postTurn', sessionId, turnId: accepted.turnId, endReason: reason });
  return RESPONSE_ALREADY_SENT;
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

function eventSource<E extends SessionEvent | HostEvent>(
  context: RouteContext,
  stream: EventStream<E>,
  schemas: PayloadSchemas,
  isLast: (event: E) => boolean,
  keep: (event: E) => boolean = () => true,
): SseSource<E> {
  const validate = context.validateResponses;
  // The pump reads the hub's stream itself: no async layer in between (it runs per event per client).
  return {
    items: stream,
    frame: (event) => {
      if (!keep(event)) return undefined;
      if (validate) checkEvent(context, event, schemas);
      return eventFrame(event);
    },
    isLast: (event) => keep(event) && isLast(event),
    ended: stream.ended,
    close: () => stream.close(),
  };
}

function checkEvent(context: RouteContext, event: SessionEvent | HostEvent, schemas: PayloadSchemas): void {
  const parsed = schemas[event.type]?.safeParse(event.data);
  if (parsed === undefined || !parsed.success) {
    context.logger.error('sse.event_invalid', {
      type: event.type,
      seq: event.data.seq,
      diagnostic: parsed?.error.issues.slice(0, 10).map((issue) => ({ path: issue.path.join('.'), code: issue.code })),
    });
  }
}
