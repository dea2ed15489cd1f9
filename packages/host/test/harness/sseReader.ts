import type { HostClient, SseFrame } from '@outrigger/host-api';

export interface ReadOptions {
  /** Resume after this seq (sent as `Last-Event-ID`). */
  lastEventId?: number;
  /** Give up after this long (default 60 s): fails with what was seen. */
  timeoutMs?: number;
  /** Keep heartbeats in the result (default: dropped). */
  heartbeats?: boolean;
}

/**
 * Reads a session's (or, without `sessionId`, the host's) SSE stream until `until` holds for a frame, then
 * closes it and returns the frames read, that one included.
 */
export async function readEventsUntil(
  client: HostClient,
  sessionId: string | undefined,
  until: (frame: SseFrame, seen: readonly SseFrame[]) => boolean,
  options: ReadOptions = {},
): Promise<SseFrame[]> {
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const seen: SseFrame[] = [];
  try {
    const frames =
      sessionId === undefined
        ? client.stream('hostEvents', { lastEventId: options.lastEventId, signal: controller.signal })
        : client.stream('sessionEvents', {
            params: { id: sessionId },
            lastEventId: options.lastEventId,
            signal: controller.signal,
          });
    for await (const frame of frames) {
      if (frame.event === 'heartbeat' && options.heartbeats !== true) continue;
      seen.push(frame);
      if (until(frame, seen)) return seen;
    }
    throw new Error('the stream ended');
  } catch (error) {
    const last = seen.slice(-8).map((frame) => `${frame.id ?? '-'} ${frame.event}${outcomeOf(frame)}`);
    const why = controller.signal.aborted ? `no match within ${timeoutMs} ms` : String(error);
    throw new Error(`${why}; last frames: ${last.join(', ') || 'none'}`);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** The session's last stored seq: its stream read after it brings only what happens next. */
export async function lastSeqOf(client: HostClient, sessionId: string): Promise<number> {
  return (await client.call('getSession', { params: { id: sessionId } })).lastSeq;
}

/** Posts `prompt` to the session and reads its stream, from just before the post, to the turn's `done`. */
export async function runTurnToDone(
  client: HostClient,
  sessionId: string,
  prompt: string,
): Promise<{ turnId: string; frames: SseFrame[] }> {
  const from = await lastSeqOf(client, sessionId);
  const { turnId } = await client.call('postTurn', { params: { id: sessionId }, body: { prompt } });
  return { turnId, frames: await readEventsUntil(client, sessionId, isDoneOf(turnId), { lastEventId: from }) };
}

/** Posts a prompt and answers every approval it asks with allow, up to the turn's `done`. */
export async function runTurnAllowing(
  client: HostClient,
  sessionId: string,
  prompt: string,
): Promise<{ turnId: string; frames: SseFrame[] }> {
  let from = await lastSeqOf(client, sessionId);
  const { turnId } = await client.call('postTurn', { params: { id: sessionId }, body: { prompt } });
  const frames: SseFrame[] = [];
  for (;;) {
    const read = await readEventsUntil(
      client,
      sessionId,
      (frame) => isDoneOf(turnId)(frame) || frame.event === 'permission_request',
      { lastEventId: from },
    );
    frames.push(...read);
    const last = read.at(-1)!;
    from = Number(last.id);
    if (last.event !== 'permission_request') return { turnId, frames };
    const requestId = (last.data as { interaction: { requestId: string } }).interaction.requestId;
    await client.call('answerInteraction', {
      params: { id: sessionId, requestId },
      body: { action: 'allow', optionId: 'allow', payload: {} },
    });
  }
}

/** The frame is this turn's `done`. */
export function isDoneOf(turnId: string): (frame: SseFrame) => boolean {
  return (frame) => frame.event === 'done' && (frame.data as { turnId?: string }).turnId === turnId;
}

/** Ids of stored frames (heartbeats have none), as numbers. */
export function seqsOf(frames: readonly SseFrame[]): number[] {
  return frames.filter((frame) => frame.id !== undefined).map((frame) => Number(frame.id));
}

/** How a frame that ends something ended, for a failure message: ` (failed: <error>)`; empty for others. */
function outcomeOf(frame: SseFrame): string {
  if (frame.event !== 'result' && frame.event !== 'done' && frame.event !== 'error') return '';
  const data = frame.data as {
    outcome?: string;
    error?: { message?: string; code?: string | null } | null;
    message?: string;
  };
  const error = data.error?.message ?? data.message;
  return ` (${data.outcome ?? data.error?.code ?? 'error'}${error === undefined ? '' : `: ${error.slice(0, 200)}`})`;
}
