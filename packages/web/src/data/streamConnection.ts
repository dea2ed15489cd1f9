import { HostApiError, type SseFrame, sseTiming } from '@outrigger/host-api';

/**
 * `connecting`: the first connection is being opened. `live`: the stream is open and not silent. `disconnected`:
 * the stream broke or went silent (no heartbeat for `deadAfterMs`) and is being reopened.
 * `unauthorized`: the host refused the cookie or token. `gone`: the host does not know the stream.
 * `stopped`: closed by us.
 */
export type ConnectionState = 'connecting' | 'live' | 'disconnected' | 'unauthorized' | 'gone' | 'stopped';

/** A stored event of a stream: its `seq` and its payload, not yet validated. */
export interface StreamFrame {
  readonly seq: number;
  readonly type: string;
  readonly data: unknown;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface StreamConnectionOptions {
  /** Opens the stream after `after` (sent as `Last-Event-ID`); resolves once the response is open. */
  open(after: number, signal: AbortSignal): Promise<AsyncIterable<SseFrame>>;
  onFrame(frame: StreamFrame): void;
  onState?(state: ConnectionState, error?: unknown): void;
  /** The seq the caller already holds (a snapshot's `lastSeq`). */
  after: number;
  deadAfterMs?: number;
  /** Delay before reconnect attempt `n` (0-based). */
  backoffMs?(attempt: number): number;
  timers?: Timers;
}

/** The real timers; tests pass fake ones. */
export const realTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export function defaultBackoffMs(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 10_000);
}

/**
 * Keeps one SSE stream open for as long as it is wanted: reconnects after any break with the last
 * seq it delivered (the host replays what was missed), drops frames at or below that seq (a replay
 * overlapping what arrived), and calls a stream dead when neither an event nor a heartbeat arrived
 * for `deadAfterMs`, because a half-open TCP connection otherwise looks alive forever.
 */
export class StreamConnection {
  readonly #options: StreamConnectionOptions;
  readonly #timers: Timers;
  readonly #deadAfterMs: number;
  #lastSeq: number;
  #state: ConnectionState = 'connecting';
  #stopped = false;
  #current: AbortController | undefined;
  #wakeUp: (() => void) | undefined;

  constructor(options: StreamConnectionOptions) {
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
    this.#deadAfterMs = options.deadAfterMs ?? sseTiming.deadAfterMs;
    this.#lastSeq = options.after;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Runs until `stop()`, an `unauthorized` or a `gone`. */
  async run(): Promise<void> {
    let attempt = 0;
    while (!this.#stopped) {
      const delivered = await this.#connectOnce();
      if (this.#stopped || this.#state === 'unauthorized' || this.#state === 'gone') return;
      if (delivered) attempt = 0;
      this.#setState('disconnected');
      await this.#sleep((this.#options.backoffMs ?? defaultBackoffMs)(attempt));
      attempt += 1;
    }
  }

  /** Skips the wait before the next attempt (the browser came back online, the tab became visible). */
  reconnectNow(): void {
    this.#wakeUp?.();
  }

  stop(): void {
    this.#stopped = true;
    this.#current?.abort();
    this.#wakeUp?.();
    this.#setState('stopped');
  }

  /** One connection; true when it delivered at least one frame. */
  async #connectOnce(): Promise<boolean> {
    const controller = new AbortController();
    this.#current = controller;
    let delivered = false;
    let deadTimer: unknown;
    const arm = () => {
      if (deadTimer !== undefined) this.#timers.clearTimeout(deadTimer);
      deadTimer = this.#timers.setTimeout(() => controller.abort(), this.#deadAfterMs);
    };
    arm();
    try {
      const frames = await this.#options.open(this.#lastSeq, controller.signal);
      this.#setState('live');
      for await (const frame of frames) {
        if (this.#stopped) break;
        arm();
        delivered = true;
        if (frame.event === 'heartbeat' || frame.id === undefined) continue;
        const seq = Number(frame.id);
        if (!Number.isSafeInteger(seq) || seq <= this.#lastSeq) continue;
        this.#lastSeq = seq;
        this.#options.onFrame({ seq, type: frame.event, data: frame.data });
      }
      // The host ended the response (a restart, a proxy time-out): reconnect like after a break.
    } catch (error) {
      if (!this.#stopped && error instanceof HostApiError) {
        if (error.status === 401) this.#setState('unauthorized', error);
        else if (error.status === 404) this.#setState('gone', error);
        else this.#options.onState?.('disconnected', error);
      }
    } finally {
      if (deadTimer !== undefined) this.#timers.clearTimeout(deadTimer);
      controller.abort();
    }
    return delivered;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const handle = this.#timers.setTimeout(() => {
        this.#wakeUp = undefined;
        resolve();
      }, ms);
      this.#wakeUp = () => {
        this.#timers.clearTimeout(handle);
        this.#wakeUp = undefined;
        resolve();
      };
    });
  }

  #setState(state: ConnectionState, error?: unknown): void {
    if (this.#state === state || (this.#state === 'stopped' && state !== 'stopped')) return;
    this.#state = state;
    this.#options.onState?.(state, error);
  }
}

/** What a failed first load says about the connection: the host refused this browser, or it is not reachable. */
export function connectionAfterLoadError(error: unknown): ConnectionState {
  return error instanceof HostApiError && error.status === 401 ? 'unauthorized' : 'disconnected';
}
