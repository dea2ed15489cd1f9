import type { HistoryChangedEvent } from '@outrigger/host-api';
import type { EventStream } from '../events/eventStream.ts';

type EndReason = 'closed' | 'slow_consumer' | 'shutdown';

/** Unread events a client may fall behind by before it is cut (it reconnects and refetches). */
const BUFFER_LIMIT = 256;

/**
 * A live `history_changed` stream: no log behind it (a client refetches what it shows), so it starts at the
 * next change. A consumer that falls `BUFFER_LIMIT` events behind is cut (`slow_consumer`), as host streams are.
 */
export class HistoryEventStream implements EventStream<HistoryChangedEvent> {
  readonly ended: Promise<EndReason>;
  readonly #buffer: HistoryChangedEvent[] = [];
  readonly #unsubscribe: () => void;
  #endedWith: EndReason | undefined;
  #resolveEnded!: (reason: EndReason) => void;
  #wake: (() => void) | undefined;

  constructor(subscribe: (listener: (event: HistoryChangedEvent) => void) => () => void) {
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
    this.#unsubscribe = subscribe((event) => this.#push(event));
  }

  end(reason: EndReason): void {
    if (this.#endedWith !== undefined) return;
    this.#endedWith = reason;
    this.#buffer.length = 0;
    this.#unsubscribe();
    this.#resolveEnded(reason);
    this.#wake?.();
  }

  close(): void {
    this.end('closed');
  }

  #push(event: HistoryChangedEvent): void {
    if (this.#endedWith !== undefined) return;
    this.#buffer.push(event);
    if (this.#buffer.length > BUFFER_LIMIT) this.end('slow_consumer');
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<HistoryChangedEvent> {
    while (true) {
      const next = this.#buffer.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#endedWith !== undefined) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}
