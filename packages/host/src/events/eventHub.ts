import type { HostEvent, SessionEvent } from '@outrigger/host-api';
import type { HostStoreReader } from '../store/hostStore.ts';
import type { EventStream } from './eventStream.ts';

/** The reads a hub replays from: the store's event logs. */
export type EventLogReader = Pick<HostStoreReader, 'readSessionEvents' | 'readHostEvents'>;

export interface EventHubOptions {
  /**
   * Live events a consumer may have waiting (published, not yet taken) before it is cut with
   * `slow_consumer`. It reconnects with its last seq and catches up from the store.
   */
  readonly maxBuffered?: number;
  /** Events read from the store per replay step. */
  readonly replayPageSize?: number;
}

const eventHubDefaults = { maxBuffered: 2048, replayPageSize: 500 } as const;

type EndReason = 'closed' | 'slow_consumer' | 'shutdown';
type AnyEvent = SessionEvent | HostEvent;

/**
 * Fan-out of committed events to live streams (`EventStream` of hostService.ts), one log per
 * session and one for the host.
 *
 * Persist, then publish: the hub only ever hands out what the store returned from a commit
 * (`publish`) or holds (replay), so no client sees an event a restart could lose.
 *
 * Subscribe, then replay: a stream registers with its log first and then reads the store after its
 * seq, page by page, as the consumer pulls; while it replays it ignores live events (the store has
 * them). It turns live only when its last seq has reached the last one published on its log, a
 * check that cannot interleave with a publish, so nothing falls between replay and live. Live, it
 * takes the next seq, drops what it already has, and falls back to replay when it sees a gap (an
 * event committed but not published to it, or published before it turned live).
 *
 * A live consumer that has `maxBuffered` events waiting is cut (`slow_consumer`); publishing never
 * waits for any consumer.
 */
export class EventHub {
  readonly #reader: EventLogReader;
  readonly #maxBuffered: number;
  readonly #pageSize: number;
  readonly #logs = new Map<string, Log>();
  #shutDown = false;

  constructor(reader: EventLogReader, options: EventHubOptions = {}) {
    this.#reader = reader;
    this.#maxBuffered = options.maxBuffered ?? eventHubDefaults.maxBuffered;
    this.#pageSize = options.replayPageSize ?? eventHubDefaults.replayPageSize;
  }

  /** Hands committed events to the live streams of their logs. Call in commit order. */
  publish(committed: {
    readonly sessionEvents: readonly SessionEvent[];
    readonly hostEvents: readonly HostEvent[];
  }): void {
    for (const event of committed.sessionEvents) this.#logs.get(sessionLogKey(event.data.session_id))?.publish(event);
    for (const event of committed.hostEvents) this.#logs.get(hostLogKey)?.publish(event);
  }

  openSessionStream(sessionId: string, afterSeq: number): EventStream<SessionEvent> {
    return this.#open<SessionEvent>(sessionLogKey(sessionId), afterSeq, (after, limit) =>
      this.#reader.readSessionEvents(sessionId, after, limit),
    );
  }

  openHostStream(afterSeq: number): EventStream<HostEvent> {
    return this.#open<HostEvent>(hostLogKey, afterSeq, (after, limit) => this.#reader.readHostEvents(after, limit));
  }

  /** Ends every stream with `shutdown`; streams opened later end at once. */
  shutdown(): void {
    this.#shutDown = true;
    for (const log of [...this.#logs.values()]) log.endAll('shutdown');
    this.#logs.clear();
  }

  /** Open streams (for tests and diagnostics). */
  get streamCount(): number {
    let count = 0;
    for (const log of this.#logs.values()) count += log.size;
    return count;
  }

  #open<E extends AnyEvent>(
    key: string,
    afterSeq: number,
    read: (afterSeq: number, limit: number) => Promise<E[]>,
  ): EventStream<E> {
    let log = this.#logs.get(key);
    if (log === undefined) {
      log = new Log(() => this.#logs.delete(key));
      this.#logs.set(key, log);
    }
    const stream = new LogStream<E>(log, afterSeq, read, this.#maxBuffered, this.#pageSize);
    if (this.#shutDown) stream.end('shutdown');
    return stream;
  }
}

const hostLogKey = 'host';
const sessionLogKey = (sessionId: string): string => `session:${sessionId}`;

/** The live streams of one log, and the highest seq published on it while any was open. */
class Log {
  readonly #streams = new Set<LogStream<AnyEvent>>();
  readonly #onEmpty: () => void;
  lastSeq = 0;

  constructor(onEmpty: () => void) {
    this.#onEmpty = onEmpty;
  }

  get size(): number {
    return this.#streams.size;
  }

  add(stream: LogStream<AnyEvent>): void {
    this.#streams.add(stream);
  }

  remove(stream: LogStream<AnyEvent>): void {
    this.#streams.delete(stream);
    if (this.#streams.size === 0) this.#onEmpty();
  }

  publish(event: AnyEvent): void {
    if (event.data.seq > this.lastSeq) this.lastSeq = event.data.seq;
    for (const stream of this.#streams) stream.offer(event);
  }

  endAll(reason: EndReason): void {
    for (const stream of [...this.#streams]) stream.end(reason);
  }
}

class LogStream<E extends AnyEvent> implements EventStream<E> {
  readonly ended: Promise<EndReason>;
  readonly #log: Log;
  readonly #read: (afterSeq: number, limit: number) => Promise<E[]>;
  readonly #maxBuffered: number;
  readonly #pageSize: number;
  readonly #buffer = new Queue<E>();
  readonly #waiters: { resolve: (result: IteratorResult<E>) => void; reject: (error: unknown) => void }[] = [];
  #resolveEnded!: (reason: EndReason) => void;
  /** The seq of the last event delivered or waiting in the buffer. */
  #lastSeq: number;
  #live = false;
  #reading = false;
  #endReason: EndReason | undefined;
  #failure: { error: unknown } | undefined;

  constructor(
    log: Log,
    afterSeq: number,
    read: (afterSeq: number, limit: number) => Promise<E[]>,
    maxBuffered: number,
    pageSize: number,
  ) {
    this.#log = log;
    this.#read = read;
    this.#maxBuffered = maxBuffered;
    this.#pageSize = pageSize;
    this.#lastSeq = afterSeq;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
    log.add(this as unknown as LogStream<AnyEvent>);
  }

  [Symbol.asyncIterator](): AsyncIterator<E> {
    return {
      next: () => this.#next(),
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }

  close(): void {
    this.end('closed');
  }

  end(reason: EndReason): void {
    if (this.#endReason !== undefined) return;
    this.#endReason = reason;
    this.#buffer.clear();
    this.#log.remove(this as unknown as LogStream<AnyEvent>);
    this.#resolveEnded(reason);
    for (const waiter of this.#waiters.splice(0)) waiter.resolve({ done: true, value: undefined });
  }

  /** A published event. Never waits: it is queued, dropped as already had, or turns the stream back to replay. */
  offer(event: AnyEvent): void {
    if (!this.#live || this.#endReason !== undefined) return;
    const seq = event.data.seq;
    if (seq <= this.#lastSeq) return;
    if (seq !== this.#lastSeq + 1) {
      // Something committed after our last seq never reached us: the store has it.
      this.#live = false;
      this.#pump();
      return;
    }
    this.#lastSeq = seq;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      waiter.resolve({ done: false, value: event as E });
      return;
    }
    if (this.#buffer.length >= this.#maxBuffered) {
      this.end('slow_consumer');
      return;
    }
    this.#buffer.push(event as E);
  }

  #next(): Promise<IteratorResult<E>> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure.error);
    const event = this.#buffer.shift();
    if (event !== undefined) return Promise.resolve({ done: false, value: event });
    if (this.#endReason !== undefined) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.#pump();
    });
  }

  /** Replays from the store while someone waits and the stream is not live. One read at a time. */
  #pump(): void {
    if (this.#live || this.#reading || this.#endReason !== undefined || this.#waiters.length === 0) return;
    this.#reading = true;
    this.#read(this.#lastSeq, this.#pageSize).then(
      (events) => {
        this.#reading = false;
        if (this.#endReason !== undefined) return;
        for (const event of events) {
          if (event.data.seq <= this.#lastSeq) continue;
          this.#lastSeq = event.data.seq;
          const waiter = this.#waiters.shift();
          if (waiter !== undefined) waiter.resolve({ done: false, value: event });
          else this.#buffer.push(event);
        }
        // Live only once nothing published on the log is newer than what we hold; this check and
        // the switch run without a publish in between.
        if (events.length < this.#pageSize && this.#log.lastSeq <= this.#lastSeq) {
          this.#live = true;
          return;
        }
        this.#pump();
      },
      (error: unknown) => {
        this.#reading = false;
        if (this.#endReason !== undefined) return;
        this.#failure = { error };
        for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
        this.end('closed');
      },
    );
  }
}

/** FIFO with O(1) take: `Array#shift` copies the whole array once it is large, and a lagging stream's buffer is. */
class Queue<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head += 1;
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}
