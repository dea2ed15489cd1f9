import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One SSE frame as sent: `id` is the event's `seq` (absent on heartbeats), `data` the parsed JSON payload. */
export interface SseFrame {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: unknown;
}

/**
 * Reads an SSE response body frame by frame, for clients that cannot use `EventSource` (Node tests,
 * the CLI, a fetch with an `Authorization` header). Ends when the body ends or `signal` aborts.
 */
export async function* readSseFrames(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseFrame, void, undefined> {
  const pending: SseFrame[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      pending.push({ id: message.id, event: message.event ?? 'message', data: parseData(message.data) });
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const abort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', abort, { once: true });
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      while (pending.length > 0) yield pending.shift() as SseFrame;
    }
  } finally {
    signal?.removeEventListener('abort', abort);
    // A consumer that stops early must not leave the connection open.
    await reader.cancel().catch(() => undefined);
  }
}

function parseData(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}
