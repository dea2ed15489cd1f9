import type { ServerResponse } from 'node:http';
import { eventDataJson } from '../store/eventJson.ts';
import { SECURITY_HEADERS } from './contentSecurityPolicy.ts';

/** One SSE frame: `id:` (stored events only), `event:`, and the payload as one JSON line. */
export function sseFrame(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The frame of a stored event. The hub hands the same event object to every stream, so its payload is
 * serialized once (`eventDataJson`) however many clients follow the log.
 */
export function eventFrame(event: { readonly type: string; readonly data: { readonly seq: number } }): string {
  return `id: ${event.data.seq}\nevent: ${event.type}\ndata: ${eventDataJson(event)}\n\n`;
}

/** A pending batch this large is written at once rather than at the end of the tick. */
const FLUSH_AT_CHARS = 64 * 1024;

export type SseEndReason = 'closed' | 'slow_consumer' | 'shutdown' | 'client_gone' | 'done';

export interface SseSource<T> {
  /** What to send, in order; the pump ends when it ends. */
  readonly items: AsyncIterable<T>;
  /** The frame of an item; undefined: not for this stream. */
  frame(item: T): string | undefined;
  /** After this item's frame the stream is complete. */
  isLast(item: T): boolean;
  /** Resolves when the source is cut (`slow_consumer`) or shut down, possibly while the pump waits. */
  readonly ended: Promise<string>;
  close(): void;
}

/**
 * Writes an SSE stream straight to the node response instead of through Hono's `streamSSE`, for three
 * reasons: frames written in one tick are coalesced into one socket write, which the fan-out of
 * durable events to many clients needs; `write()` returning false stops the pull from the event hub until
 * `drain`, so a slow client's backlog stays in the hub's bounded buffer, where it is cut as `slow_consumer`
 * instead of growing in this process; and nothing but our own JSON frames is ever written (`streamSSE`
 * writes an error's message as a non-JSON `error` event).
 */
export async function pumpSse<T>(
  response: ServerResponse,
  source: SseSource<T>,
  options: { heartbeatMs: number; prelude?: string },
): Promise<SseEndReason> {
  // Written past Hono's middleware, so the headers every other response gets are set here.
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-store, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  let waiting = false;
  let pending = '';
  let flushQueued = false;
  const flush = () => {
    flushQueued = false;
    if (pending === '' || response.destroyed) return;
    response.write(pending);
    pending = '';
  };
  // Frames of one tick go out as one chunk; `false` when the socket's buffer is full (wait for `drain`).
  const write = (text: string): boolean => {
    pending += text;
    if (pending.length >= FLUSH_AT_CHARS) flush();
    else if (!flushQueued) {
      flushQueued = true;
      process.nextTick(flush);
    }
    return !response.writableNeedDrain;
  };
  let clientGone!: () => void;
  const gone = new Promise<'client_gone'>((resolve) => {
    clientGone = () => resolve('client_gone');
  });
  const onClose = () => {
    clientGone();
    source.close();
  };
  response.on('close', onClose);
  // A reconnecting EventSource waits this long; the first line also gets the headers out at once.
  write(`retry: 1000\n\n${options.prelude ?? ''}`);
  const heartbeat = setInterval(() => {
    // A backed-up client gains nothing from more bytes; the heartbeat resumes once it drains.
    if (!waiting) write(sseFrame('heartbeat', { time: Date.now() }));
  }, options.heartbeatMs);
  let reason: SseEndReason = 'done';
  try {
    for await (const item of source.items) {
      if (response.destroyed) break;
      const frame = source.frame(item);
      if (frame === undefined) continue;
      const last = source.isLast(item);
      if (!write(frame) && !last) {
        flush();
        waiting = true;
        let onDrain!: () => void;
        const drained = new Promise<'drain'>((resolve) => {
          onDrain = () => resolve('drain');
          response.once('drain', onDrain);
        });
        const outcome = await Promise.race([drained, gone, source.ended]);
        response.off('drain', onDrain);
        waiting = false;
        if (outcome !== 'drain') break;
      }
      if (last) break;
    }
    if (response.destroyed) reason = 'client_gone';
    else {
      const ended = await Promise.race([source.ended, Promise.resolve('done' as const)]);
      reason = ended === 'slow_consumer' || ended === 'shutdown' ? ended : 'done';
    }
  } catch {
    reason = response.destroyed ? 'client_gone' : 'closed';
  } finally {
    clearInterval(heartbeat);
    response.off('close', onClose);
    source.close();
  }
  if (reason === 'slow_consumer') {
    // Its unread backlog would sit in this process; the client reconnects with its last id and catches up.
    response.destroy();
  } else if (!response.destroyed) {
    flush();
    response.end(`: ${reason}\n\n`);
  }
  return reason;
}
