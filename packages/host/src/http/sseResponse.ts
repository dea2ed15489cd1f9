import type { ServerResponse } from 'node:http';

/** One SSE frame: `id:` (stored events only), `event:`, and the payload as one JSON line. */
export function sseFrame(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export type SseEndReason = 'closed' | 'slow_consumer' | 'shutdown' | 'client_gone' | 'done';

export interface SseSource {
  /** Frames to send, in order; the pump ends when it ends. */
  readonly frames: AsyncIterable<string>;
  /** Resolves when the source is cut (`slow_consumer`) or shut down, possibly while the pump waits. */
  readonly ended: Promise<string>;
  close(): void;
}

/**
 * Writes an SSE stream straight to the node response instead of through Hono's `streamSSE`, for three
 * reasons: frames written in one tick are coalesced into one socket write (`cork`), which the fan-out of
 * durable events to many clients needs; `write()` returning false stops the pull from the event hub until
 * `drain`, so a slow client's backlog stays in the hub's bounded buffer, where it is cut as `slow_consumer`
 * instead of growing in this process; and nothing but our own JSON frames is ever written (`streamSSE`
 * writes an error's message as a non-JSON `error` event).
 */
export async function pumpSse(
  response: ServerResponse,
  source: SseSource,
  options: { heartbeatMs: number; prelude?: string },
): Promise<SseEndReason> {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-store, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-content-type-options': 'nosniff',
  });
  let corked = false;
  let waiting = false;
  const write = (text: string): boolean => {
    if (!corked) {
      corked = true;
      response.cork();
      process.nextTick(() => {
        corked = false;
        response.uncork();
      });
    }
    return response.write(text);
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
    for await (const frame of source.frames) {
      if (response.destroyed) break;
      if (!write(frame)) {
        waiting = true;
        const drained = new Promise<'drain'>((resolve) => response.once('drain', () => resolve('drain')));
        const outcome = await Promise.race([drained, gone, source.ended]);
        waiting = false;
        if (outcome !== 'drain') break;
      }
    }
    if (response.destroyed) reason = 'client_gone';
    else {
      const ended = await Promise.race([source.ended, Promise.resolve('done' as const)]);
      reason = ended === 'slow_consumer' || ended === 'shutdown' || ended === 'closed' ? ended : 'done';
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
    response.end(`: ${reason}\n\n`);
  }
  return reason;
}
