import type { EventStream } from '../../events/eventStream.ts';

type Sequenced = { data: { seq: number } };
type EndReason = 'closed' | 'slow_consumer' | 'shutdown';

/**
 * An in-memory event log with live streams, for testing the HTTP layer without the store: a stream replays
 * what is stored after its seq, then follows appends; a consumer whose unread backlog passes `bufferLimit`
 * is cut with `slow_consumer` (the replay does not count: it comes from storage). (The host's real hub lives in `src/events/`.)
 */
export class MemoryEventLog<E extends Sequenced> {
  readonly events: E[] = [];
  readonly #streams = new Set<MemoryStream<E>>();
  readonly #bufferLimit: number;

  constructor(options: { bufferLimit?: number } = {}) {
    this.#bufferLimit = options.bufferLimit ?? 1000;
  }

  get openStreams(): number {
    return this.#streams.size;
  }

  append(event: E): E {
    this.events.push(event);
    for (const stream of this.#streams) stream.push(event);
    return event;
  }

  open(afterSeq: number): EventStream<E> {
    const stream = new MemoryStream<E>(this.#bufferLimit, () => this.#streams.delete(stream));
    // The replay comes from storage, not from the live buffer: only live events count against the limit.
    for (const event of this.events) if (event.data.seq > afterSeq) stream.push(event, false);
    this.#streams.add(stream);
    return stream;
  }

  shutdown(): void {
    for (const stream of [...this.#streams]) stream.end('shutdown');
  }
}

class MemoryStream<E> implements EventStream<E> {
  readonly ended: Promise<EndReason>;
  readonly #buffer: E[] = [];
  readonly #limit: number;
  readonly #onEnd: () => void;
  #endedWith: EndReason | undefined;
  /** Replayed events still at the front of the buffer. */
  #replayed = 0;
  #resolveEnded!: (reason: EndReason) => void;
  #wake: (() => void) | undefined;

  constructor(limit: number, onEnd: () => void) {
    this.#limit = limit;
    this.#onEnd = onEnd;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  push(event: E, live = true): void {
    if (this.#endedWith !== undefined) return;
    this.#buffer.push(event);
    if (!live) this.#replayed += 1;
    if (this.#buffer.length - this.#replayed > this.#limit) this.end('slow_consumer');
    this.#wake?.();
  }

  end(reason: EndReason): void {
    if (this.#endedWith !== undefined) return;
    this.#endedWith = reason;
    this.#buffer.length = 0;
    this.#onEnd();
    this.#resolveEnded(reason);
    this.#wake?.();
  }

  close(): void {
    this.end('closed');
  }

  async *[Symbol.asyncIterator](): AsyncIterator<E> {
    try {
      while (true) {
        const next = this.#buffer.shift();
        if (next !== undefined) {
          if (this.#replayed > 0) this.#replayed -= 1;
          yield next;
          continue;
        }
        if (this.#endedWith !== undefined) return;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
      }
    } finally {
      this.close();
    }
  }
}
