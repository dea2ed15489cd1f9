import { waitForMatch } from '@outrigger/claude-sdk-sidecar/testing';
import type { HostClient, SseFrame } from '@outrigger/host-api';

/**
 * A bench client of one host session: its SSE stream read from now on for as long as the bench runs, and
 * waits on it that note when the frame arrived. Reading one long-lived stream (as the web UI does) keeps the
 * connection set-up out of the timed turns.
 */
export class SessionStream {
  readonly #frames: { frame: SseFrame; at: number }[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #controller = new AbortController();
  readonly #reading: Promise<void>;

  constructor(client: HostClient, sessionId: string, afterSeq: number) {
    this.#reading = (async () => {
      try {
        for await (const frame of client.stream('sessionEvents', {
          params: { id: sessionId },
          lastEventId: afterSeq,
          signal: this.#controller.signal,
        })) {
          this.#frames.push({ frame, at: performance.now() });
          for (const wake of this.#waiters) wake();
        }
      } catch {
        // stopped
      }
    })();
  }

  /** How many frames have arrived: a position to wait from. */
  get position(): number {
    return this.#frames.length;
  }

  /** When the first frame from `from` on that matches arrived (performance.now()). */
  async arrival(
    predicate: (frame: SseFrame) => boolean,
    from: number,
    what: string,
    timeoutMs = 60_000,
  ): Promise<number> {
    const subscribe = (wake: () => void) => {
      this.#waiters.add(wake);
      return () => this.#waiters.delete(wake);
    };
    const entry = await waitForMatch(this.#frames, subscribe, (item) => predicate(item.frame), {
      fromIndex: from,
      timeoutMs,
      description: what,
      label: (item) => item.frame.event,
    });
    return entry.at;
  }

  close(): Promise<void> {
    this.#controller.abort();
    return this.#reading;
  }
}

const turnIdOf = (frame: SseFrame) => (frame.data as { turnId?: string }).turnId;

/** The first streamed text of a turn (a non-empty delta). */
export const firstTextOf = (turnId: string) => (frame: SseFrame) =>
  frame.event === 'text' && turnIdOf(frame) === turnId && (frame.data as { delta?: string }).delta !== '';

/** A turn's done. */
export const doneOf = (turnId: string) => (frame: SseFrame) => frame.event === 'done' && turnIdOf(frame) === turnId;
