import {
  type CreateSessionBody,
  type HostClient,
  type HostEvent,
  type HostInfo,
  hostEventPayloadSchemas,
  isHostEventType,
  type SessionSummary,
} from '@outrigger/host-api';
import { emptyHostState, type HostViewState, hostReducer } from './hostState.ts';
import { streamOpener } from './hostStreams.ts';
import { lenientParse } from './lenientParse.ts';
import { messageOf } from './sessionStore.ts';
import {
  type ConnectionState,
  StreamConnection,
  type StreamConnectionOptions,
  type StreamFrame,
} from './streamConnection.ts';
import { ValueStore } from './valueStore.ts';

export interface HostScreen {
  info: HostInfo | null;
  view: HostViewState;
  connection: ConnectionState;
  loadError: string | null;
}

/**
 * The host-wide data: `/api/info`, the session list and the pending interactions, then the host
 * stream from the lists' `lastSeq` (the sidebar and the inbox of every tab stay in step).
 */
export class HostStore {
  readonly screen = new ValueStore<HostScreen>({
    info: null,
    view: emptyHostState,
    connection: 'connecting',
    loadError: null,
  });
  readonly #client: HostClient;
  readonly #streamOptions: Partial<StreamConnectionOptions>;
  #connection: StreamConnection | undefined;
  #stopped = false;

  constructor(client: HostClient, streamOptions: Partial<Pick<StreamConnectionOptions, 'open' | 'timers'>> = {}) {
    this.#client = client;
    this.#streamOptions = streamOptions;
  }

  async start(): Promise<void> {
    try {
      const [info, sessions, interactions] = await Promise.all([
        this.#client.call('info'),
        this.#client.call('listSessions', { query: { includeClosed: '1' } }),
        this.#client.call('listInteractions', { query: { status: 'pending' } }),
      ]);
      if (this.#stopped) return;
      // Replay from the older of the two lists: every later event is applied over them in order. A host
      // that does not say its seq yet is replayed from the start, which lands on the same state.
      const lastSeq = Math.min(sessions.lastSeq ?? 0, interactions.lastSeq ?? 0);
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
      this.screen.update((screen) => ({
        ...screen,
        loadError: messageOf(error),
        connection: isUnauthorized(error) ? 'unauthorized' : 'disconnected',
      }));
      return;
    }
    this.#connection = new StreamConnection({
      open: streamOpener(this.#client, 'hostEvents'),
      ...this.#streamOptions,
      after: this.screen.get().view.lastSeq,
      onFrame: (frame) => this.#onFrame(frame),
      onState: (connection) => this.screen.update((screen) => ({ ...screen, connection })),
    });
    await this.#connection.run();
  }

  stop(): void {
    this.#stopped = true;
    this.#connection?.stop();
  }

  reconnectNow(): void {
    this.#connection?.reconnectNow();
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

  async fork(sessionId: string, turnId: string): Promise<SessionSummary> {
    const forked = await this.#client.call('forkSession', { params: { id: sessionId }, body: { turnId } });
    this.#saved(forked.session);
    return forked.session;
  }

  /** This tab answered it: drop it from the inbox now (the stream says so again for other tabs). */
  interactionClosed(requestId: string): void {
    this.#dispatchView((view) => hostReducer(view, { type: 'interactionClosed', requestId }));
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
    if (!isHostEventType(frame.type)) return;
    const data = lenientParse(hostEventPayloadSchemas[frame.type], frame.data, `host ${frame.type}`);
    if (data === null) return;
    const event = { type: frame.type, data } as HostEvent;
    this.#dispatchView((view) => hostReducer(view, { type: 'event', event }));
  }
}

function isUnauthorized(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 401;
}
