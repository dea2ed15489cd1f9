import {
  type HistoryList,
  type HostClient,
  historyChangedEventSchema,
  readSseFrames,
  type SseFrame,
} from '@outrigger/host-api';
import { CoalescedLoad } from './coalescedLoad.ts';
import { messageOf } from './format.ts';
import { lenientParse } from './lenientParse.ts';
import {
  type ConnectionState,
  realTimers,
  StreamConnection,
  type StreamConnectionOptions,
  type Timers,
} from './streamConnection.ts';
import { ValueStore } from './valueStore.ts';

/** The Claude Code history view: the host's list for the query typed, and the live stream's health. */
export interface HistoryScreen {
  /** Null until the first answer. */
  list: HistoryList | null;
  /** What the person typed (the list may still answer an earlier query while `searching`). */
  query: string;
  searching: boolean;
  error: string | null;
  connection: ConnectionState;
}

export interface HistoryStoreOptions {
  timers?: Timers;
  /** How long typing pauses before the host is asked (one search per pause, not per key). */
  debounceMs?: number;
  /** How long a burst of `history_changed` is gathered before the list reloads. */
  changeDelayMs?: number;
  stream?: Partial<Pick<StreamConnectionOptions, 'open' | 'timers' | 'deadAfterMs' | 'backoffMs'>>;
}

/**
 * Claude Code's sessions on this machine (`listHistory`), searched as the person types (debounced, one load at
 * a time, an answer to an older query never shown for a newer one), and kept current by `history_changed` while
 * the view is open. That stream is not replayed, so whenever it comes back after a break the list loads again:
 * what changed meanwhile was never sent.
 */
export class HistoryStore {
  readonly screen = new ValueStore<HistoryScreen>({
    list: null,
    query: '',
    searching: false,
    error: null,
    connection: 'connecting',
  });
  readonly #client: HostClient;
  readonly #options: HistoryStoreOptions;
  readonly #timers: Timers;
  readonly #loads: CoalescedLoad;
  #connection: StreamConnection | undefined;
  #debounce: unknown;
  #brokeOnce = false;

  constructor(client: HostClient, options: HistoryStoreOptions = {}) {
    this.#client = client;
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
    this.#loads = new CoalescedLoad(() => this.#load(), {
      timers: this.#timers,
      delayMs: options.changeDelayMs ?? 200,
    });
  }

  /** The first load, then the live stream until `stop()`. */
  start(): Promise<void> {
    this.#follow();
    return this.#loads.now();
  }

  stop(): void {
    this.#loads.stop();
    this.#timers.clearTimeout(this.#debounce);
    this.pause();
  }

  /** The tab is hidden: let go of the stream (a browser allows six connections per host, across its tabs). */
  pause(): void {
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.stop();
  }

  /** Visible again: follow the stream and load the list, for what changed while nobody listened. */
  resume(): void {
    if (this.#connection !== undefined) return;
    this.#follow();
    void this.#loads.now();
  }

  #follow(): void {
    this.#brokeOnce = false;
    const connection = new StreamConnection({
      open: historyStreamOpener(this.#client),
      ...this.#options.stream,
      after: 0,
      onFrame: (frame) => {
        if (frame.type !== 'history_changed') return;
        const change = lenientParse(historyChangedEventSchema, frame.data, 'history history_changed');
        const shown = this.screen.get().list?.revision;
        if (change !== null && shown !== undefined && change.revision === shown) return;
        this.#loads.soon();
      },
      onState: (state) => {
        if (this.#connection !== connection) return;
        this.screen.update((screen) => ({ ...screen, connection: state }));
        if (state === 'disconnected') this.#brokeOnce = true;
        // Back after a break: the changes sent meanwhile are lost (not replayed), so ask for the list again.
        if (state === 'live' && this.#brokeOnce) void this.#loads.now();
      },
    });
    this.#connection = connection;
    void connection.run();
  }

  /** The person typed: the list for `query` after a pause in the typing. */
  search(query: string): void {
    if (query === this.screen.get().query) return;
    this.screen.update((screen) => ({ ...screen, query, searching: true }));
    this.#timers.clearTimeout(this.#debounce);
    this.#debounce = this.#timers.setTimeout(() => void this.#loads.now(), this.#options.debounceMs ?? 200);
  }

  reload(): Promise<void> {
    return this.#loads.now();
  }

  async #load(): Promise<void> {
    const query = this.screen.get().query;
    const q = query.trim();
    try {
      const list = await this.#client.call('listHistory', { query: { q: q === '' ? undefined : q } });
      // Typed on meanwhile: the next load answers that.
      if (this.screen.get().query !== query) return;
      this.screen.update((screen) => ({ ...screen, list, searching: false, error: null }));
    } catch (error) {
      if (this.screen.get().query !== query) return;
      this.screen.update((screen) => ({ ...screen, searching: false, error: messageOf(error) }));
    }
  }
}

/**
 * Opens `historyEvents`. Its events are not replayed and carry no seq of their own a client could resume from,
 * so each frame gets a local, increasing one: `StreamConnection` then delivers every frame of every connection
 * (it drops frames at or below what it delivered) and keeps its heartbeat watch and backoff.
 */
export function historyStreamOpener(client: HostClient): StreamConnectionOptions['open'] {
  let seq = 0;
  return async (_after, signal) => {
    const response = await client.raw('historyEvents', { headers: { accept: 'text/event-stream' }, signal });
    if (response.body === null) throw new TypeError('the stream has no body');
    return numbered(readSseFrames(response.body, signal), () => ++seq);
  };
}

async function* numbered(frames: AsyncIterable<SseFrame>, next: () => number): AsyncGenerator<SseFrame> {
  for await (const frame of frames) yield frame.event === 'heartbeat' ? frame : { ...frame, id: String(next()) };
}
