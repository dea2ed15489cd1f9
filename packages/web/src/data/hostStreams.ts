import { type HostClient, readSseFrames, type SseFrame } from '@outrigger/host-api';

/** Opens a host SSE route after a seq (sent as `Last-Event-ID`); what `StreamConnection.open` needs. */
export function streamOpener(
  client: HostClient,
  name: 'sessionEvents' | 'hostEvents',
  params: Record<string, string> = {},
): (after: number, signal: AbortSignal) => Promise<AsyncIterable<SseFrame>> {
  return async (after, signal) => {
    const response = await client.raw(name, {
      params,
      headers: { accept: 'text/event-stream', 'last-event-id': String(after) },
      signal,
    });
    if (response.body === null) throw new TypeError('the stream has no body');
    return readSseFrames(response.body, signal);
  };
}
