import {
  type CreateSessionBody,
  type DeleteSessionResponse,
  type DirectoryCompletion,
  type HostClient,
  type HostEvent,
  type HostInfo,
  hostEventPayloadSchemas,
  type RecentDirectories,
  type SessionSearch,
  type SessionSummary,
} from '@outrigger/host-api';
import { messageOf } from './format.ts';
import { emptyHostState, type HostViewState, hostReducer } from './hostState.ts';
import { streamOpener } from './hostStreams.ts';
import { eventOfFrame } from './lenientParse.ts';
import {
  type ConnectionState,
  connectionAfterLoadError,
  StreamConnection,
  type StreamConnectionOptions,
  type StreamFrame,
} from './streamConnection.ts';
import type { ShareMessage, TabShare } from './tabShare.ts';
import { ValueStore } from './valueStore.ts';

export interface HostScreen {
  info: HostInfo | null;
  view: HostViewState;
  connection: ConnectionState;
  loadError: string | null;
}

export interface HostStoreOptions {
  /** Shares one host stream among the tabs of this host (absent: this tab follows its own). */
  share?: TabShare;
  /** Overrides for the stream (tests: fake timers, a fake opener), as `SessionStoreOptions.stream`. */
  stream?: Partial<Pick<StreamConnectionOptions, 'open' | 'timers'>>;
}

/**
 * The host-wide data: `/api/info`, the session list and the pending interactions, then the host
 * stream from the lists' `lastSeq` (the sidebar and the inbox of every tab stay in step).
 *
 * With a `TabShare`, the tabs hold one host stream between them: the tab holding the lock follows it
 * and posts every frame; the others apply what it posts. The host log's seqs have no holes, so a tab
 * that sees one (it missed a post) loads the lists again; a tab that takes the lead opens the stream
 * from the last seq it applied.
 */
export class HostStore {
  readonly screen = new ValueStore<HostScreen>({
    info: null,
    view: emptyHostState,
    connection: 'connecting',
    loadError: null,
  });
  readonly #client: HostClient;
  readonly #options: HostStoreOptions;
  #connection: StreamConnection | undefined;
  #stopped = false;
  readonly #leading = new AbortController();
  /** The last host seq this tab has seen (applied, or shown by the lists). */
  #seq = 0;
  /** Posted frames waiting while the lists (re)load. */
  #pending: StreamFrame[] | undefined;
  #loading: Promise<boolean> | undefined;

  constructor(client: HostClient, options: HostStoreOptions = {}) {
    this.#client = client;
    this.#options = options;
  }

  async start(): Promise<void> {
    const { share } = this.#options;
    // Listening before the lists load: a frame posted meanwhile waits, and nothing falls in between.
    const unlisten = share?.listen((message) => this.#onShared(message));
    try {
      if (!(await this.#loadLists())) return;
      if (share === undefined) {
        await this.#follow();
        return;
      }
      share.post({ kind: 'hello' });
      await share.lead(this.#leading.signal, () => this.#follow(share));
    } finally {
      unlisten?.();
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#leading.abort();
    this.#connection?.stop();
  }

  reconnectNow(): void {
    if (this.#connection !== undefined) this.#connection.reconnectNow();
    else this.#options.share?.post({ kind: 'wake' });
  }

  async createSession(body: CreateSessionBody): Promise<SessionSummary> {
    const created = await this.#client.call('createSession', { body });
    this.#saved(created.session);
    return created.session;
  }

  async rename(sessionId: string, title: string): Promise<void> {
    this.#saved(await this.#client.call('renameSession', { params: { id: sessionId }, body: { title } }));
  }

  async close(sessionId: string): Promise<void> {
    await this.#client.call('closeSession', { params: { id: sessionId } });
    const known = this.screen.get().view.sessions[sessionId];
    if (known !== undefined) this.#saved({ ...known, closed: true });
  }

  /** Archive (hidden from the list) or restore. */
  async archive(sessionId: string, archived: boolean): Promise<SessionSummary> {
    const saved = await this.#client.call('archiveSession', { params: { id: sessionId }, body: { archived } });
    this.#saved(saved);
    return saved;
  }

  /** For good: the host says which Claude Code transcripts it left in place. */
  async deleteSession(sessionId: string): Promise<DeleteSessionResponse> {
    const deleted = await this.#client.call('deleteSession', { params: { id: sessionId }, body: {} });
    this.#dispatchView((view) => hostReducer(view, { type: 'sessionDeleted', sessionId }));
    return deleted;
  }

  /** The archived sessions (this tab's list holds only the others). */
  async archivedSessions(signal?: AbortSignal): Promise<SessionSummary[]> {
    const list = await this.#client.call('listSessions', {
      query: { includeClosed: '1', archived: 'only' },
      ...(signal === undefined ? {} : { signal }),
    });
    return list.sessions;
  }

  searchSessions(q: string, archived: boolean, signal?: AbortSignal): Promise<SessionSearch> {
    return this.#client.call('searchSessions', {
      query: { q, archived: archived ? 'only' : 'exclude' },
      ...(signal === undefined ? {} : { signal }),
    });
  }

  recentDirectories(): Promise<RecentDirectories> {
    return this.#client.call('recentDirectories', {});
  }

  completeDirectory(prefix: string, signal?: AbortSignal): Promise<DirectoryCompletion> {
    return this.#client.call('completeDirectory', { query: { prefix }, ...(signal === undefined ? {} : { signal }) });
  }

  async fork(sessionId: string, turnId: string, title?: string): Promise<SessionSummary> {
    const forked = await this.#client.call('forkSession', {
      params: { id: sessionId },
      body: title === undefined ? { turnId } : { turnId, title },
    });
    this.#saved(forked.session);
    return forked.session;
  }

  /** This tab answered it: drop it from the inbox now (the stream says so again for other tabs). */
  interactionClosed(requestId: string): void {
    this.#dispatchView((view) => hostReducer(view, { type: 'interactionClosed', requestId }));
  }

  /** The lists, at a seq the host stream continues from. False when they did not load (or the store stopped). */
  #loadLists(): Promise<boolean> {
    this.#loading ??= this.#readLists().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #readLists(): Promise<boolean> {
    this.#pending = [];
    try {
      const [info, sessions, interactions] = await Promise.all([
        this.#client.call('info'),
        this.#client.call('listSessions', { query: { includeClosed: '1' } }),
        this.#client.call('listInteractions', { query: { status: 'pending' } }),
      ]);
      if (this.#stopped) return false;
      // Replay from the older of the two lists: every later event is applied over them in order. A host
      // that does not say its seq yet is replayed from the start, which lands on the same state.
      const lastSeq = Math.min(sessions.lastSeq ?? 0, interactions.lastSeq ?? 0);
      this.#seq = lastSeq;
      this.screen.update((screen) => ({
        ...screen,
        info,
        loadError: null,
        view: hostReducer(screen.view, {
          type: 'lists',
          sessions: sessions.sessions,
          interactions: interactions.interactions,
          lastSeq,
        }),
      }));
    } catch (error) {
      this.#pending = undefined;
      this.screen.update((screen) => ({
        ...screen,
        loadError: messageOf(error),
        connection: connectionAfterLoadError(error),
      }));
      return false;
    }
    const waiting = this.#pending;
    this.#pending = undefined;
    for (const frame of waiting) this.#onPosted(frame);
    return true;
  }

  /** Follows the host stream from the last seq this tab has, until `stop()`; posts what it gets when it leads. */
  async #follow(share?: TabShare): Promise<void> {
    // A reload of the lists (a missed post) finishes first: the stream continues from their seq.
    await this.#loading;
    if (this.#stopped) return;
    this.#connection = new StreamConnection({
      open: streamOpener(this.#client, 'hostEvents'),
      ...this.#options.stream,
      after: this.#seq,
      onFrame: (frame) => {
        this.#onFrame(frame);
        share?.post({ kind: 'frame', frame });
      },
      onState: (connection) => {
        this.screen.update((screen) => ({ ...screen, connection }));
        share?.post({ kind: 'state', state: connection });
      },
    });
    try {
      await this.#connection.run();
    } finally {
      this.#connection = undefined;
    }
  }

  #onShared(message: ShareMessage): void {
    const leading = this.#connection !== undefined;
    switch (message.kind) {
      case 'frame':
        if (!leading) this.#onPosted(message.frame);
        return;
      case 'state':
        if (!leading) this.screen.update((screen) => ({ ...screen, connection: message.state }));
        return;
      case 'hello':
        if (leading) this.#options.share?.post({ kind: 'state', state: this.screen.get().connection });
        return;
      case 'wake':
        this.#connection?.reconnectNow();
        return;
    }
  }

  /** A frame another tab posted: the next seq applies, an older one is known, a later one means one was missed. */
  #onPosted(frame: StreamFrame): void {
    if (this.#pending !== undefined) {
      this.#pending.push(frame);
      return;
    }
    if (frame.seq <= this.#seq) return;
    if (frame.seq === this.#seq + 1) {
      this.#onFrame(frame);
      return;
    }
    void this.#loadLists();
  }

  #saved(session: SessionSummary): void {
    this.#dispatchView((view) => hostReducer(view, { type: 'sessionSaved', session }));
  }

  #dispatchView(change: (view: HostViewState) => HostViewState): void {
    this.screen.update((screen) => {
      const view = change(screen.view);
      return view === screen.view ? screen : { ...screen, view };
    });
  }

  #onFrame(frame: StreamFrame): void {
    if (frame.seq > this.#seq) this.#seq = frame.seq;
    const event = eventOfFrame(hostEventPayloadSchemas, frame, 'host') as HostEvent | null;
    if (event !== null) this.#dispatchView((view) => hostReducer(view, { type: 'event', event }));
  }
}
