import {
  type AnswerInteractionBody,
  type HostClient,
  type Interaction,
  type PatchSettingsBody,
  type PatchTaskBody,
  type SessionEvent,
  sessionEventPayloadSchemas,
  type TaskStatus,
  type ToolResultBlock,
} from '@outrigger/host-api';
import { messageOf } from './format.ts';
import { streamOpener } from './hostStreams.ts';
import { eventOfFrame } from './lenientParse.ts';
import { type SessionAction, sessionReducer } from './sessionReducer.ts';
import { emptySessionState, type SessionViewState } from './sessionState.ts';
import {
  type ConnectionState,
  connectionAfterLoadError,
  StreamConnection,
  type StreamConnectionOptions,
  type StreamFrame,
} from './streamConnection.ts';
import { ValueStore } from './valueStore.ts';

/** One session's screen: the folded view, the stream's health, and what failed to load. */
export interface SessionScreen {
  view: SessionViewState;
  connection: ConnectionState;
  loadError: string | null;
  loadingOlder: boolean;
}

export interface SessionStoreOptions {
  now?(): number;
  /** Overrides for the stream (tests: fake timers, a fake opener). */
  stream?: Partial<Pick<StreamConnectionOptions, 'open' | 'timers' | 'deadAfterMs' | 'backoffMs'>>;
}

/**
 * A session's data, independent of React: loads the snapshot, then follows the stream from the
 * snapshot's `lastSeq` and folds both through `sessionReducer`; pages older rows; and performs the
 * session's commands, folding their answers in at once so this tab never waits for its own echo.
 */
export class SessionStore {
  readonly screen: ValueStore<SessionScreen>;
  readonly sessionId: string;
  readonly #client: HostClient;
  readonly #options: SessionStoreOptions;
  #connection: StreamConnection | undefined;
  /** Bumped by every start and stop, so a start overtaken by a stop (React's StrictMode) opens nothing. */
  #generation = 0;
  /** The snapshot is in: the stream can follow from its seq. */
  #loaded = false;
  #paused = false;
  readonly #eventListeners = new Set<(event: SessionEvent) => void>();

  constructor(client: HostClient, sessionId: string, options: SessionStoreOptions = {}) {
    this.#client = client;
    this.sessionId = sessionId;
    this.#options = options;
    this.screen = new ValueStore<SessionScreen>({
      view: emptySessionState(sessionId),
      connection: 'connecting',
      loadError: null,
      loadingOlder: false,
    });
  }

  get view(): SessionViewState {
    return this.screen.get().view;
  }

  async start(): Promise<void> {
    const generation = ++this.#generation;
    try {
      const snapshot = await this.#client.call('getSession', { params: { id: this.sessionId } });
      if (generation !== this.#generation) return;
      this.dispatch({ type: 'snapshot', snapshot });
      this.#loaded = true;
    } catch (error) {
      if (generation === this.#generation)
        this.screen.update((screen) => ({
          ...screen,
          loadError: messageOf(error),
          connection: connectionAfterLoadError(error),
        }));
      return;
    }
    await this.#follow();
  }

  stop(): void {
    this.#generation += 1;
    this.#loaded = false;
    this.#connection?.stop();
    this.#connection = undefined;
  }

  /**
   * The tab is hidden: let go of the stream. A browser opens at most six connections to a host across
   * all its tabs, so hidden tabs must not hold them; `resume` catches up from the last seq (the host
   * replays what came meanwhile).
   */
  pause(): void {
    this.#paused = true;
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.stop();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    if (this.#loaded && this.#connection === undefined) void this.#follow();
  }

  reconnectNow(): void {
    this.#connection?.reconnectNow();
  }

  /**
   * Every new event of the stream, after the view folded it (a replayed or duplicate one is not handed
   * on): for the stores that reload from the host on an event rather than fold it (a session's changes).
   */
  onEvent(listener: (event: SessionEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  dispatch(action: SessionAction): void {
    this.screen.update((screen) => {
      const view = sessionReducer(screen.view, action);
      return view === screen.view ? screen : { ...screen, view };
    });
  }

  async loadOlder(): Promise<void> {
    const screen = this.screen.get();
    if (screen.loadingOlder || !screen.view.hasOlder) return;
    const first = screen.view.rows[screen.view.order[0] ?? ''];
    this.screen.update((s) => ({ ...s, loadingOlder: true }));
    try {
      const page = await this.#client.call('listMessages', {
        params: { id: this.sessionId },
        query: { before: first?.position },
      });
      this.dispatch({ type: 'olderPage', page });
    } finally {
      this.screen.update((s) => ({ ...s, loadingOlder: false }));
    }
  }

  async answer(interaction: Interaction, body: AnswerInteractionBody): Promise<void> {
    const answered = await this.#client.call('answerInteraction', {
      params: { id: interaction.session_id, requestId: interaction.requestId },
      body,
    });
    this.dispatch({ type: 'interactionAnswered', interaction: answered.interaction });
  }

  cancel(turnId: string) {
    return this.#client.call('cancelTurn', { params: { id: this.sessionId, turnId }, body: {} });
  }

  /** The queued prompt's new text; the `queue` event brings it to every tab. */
  editQueued(turnId: string, prompt: string) {
    return this.#client.call('editQueuedTurn', { params: { id: this.sessionId, turnId }, body: { prompt } });
  }

  /** Run now: a queued (or paused) prompt starts while no turn runs. */
  runQueued(turnId: string) {
    return this.#client.call('runQueuedTurn', { params: { id: this.sessionId, turnId }, body: {} });
  }

  /** Resume the paused queue. */
  resumeQueue() {
    return this.#client.call('resumeQueue', { params: { id: this.sessionId }, body: {} });
  }

  async updateSettings(body: PatchSettingsBody): Promise<void> {
    await this.#client.call('updateSettings', { params: { id: this.sessionId }, body });
  }

  async addTask(title: string): Promise<void> {
    const { task } = await this.#client.call('createTask', { body: { session_id: this.sessionId, title } });
    this.dispatch({ type: 'taskSaved', task });
  }

  async updateTask(taskId: string, body: PatchTaskBody & { status?: TaskStatus }): Promise<void> {
    const { task } = await this.#client.call('updateTask', { params: { taskId }, body });
    this.dispatch({ type: 'taskSaved', task });
  }

  async deleteTask(taskId: string): Promise<void> {
    await this.#client.call('deleteTask', { params: { taskId } });
    this.dispatch({ type: 'taskDeleted', taskId });
  }

  fullToolResult(toolUseId: string): Promise<ToolResultBlock> {
    return this.#client.call('getToolResult', { params: { id: this.sessionId, toolUseId } });
  }

  /** The stream from the view's seq, until `stop()` or `pause()`. */
  async #follow(): Promise<void> {
    if (this.#paused) return;
    this.screen.update((screen) => ({ ...screen, connection: 'connecting' }));
    const connection = new StreamConnection({
      open: streamOpener(this.#client, 'sessionEvents', { id: this.sessionId }),
      ...this.#options.stream,
      after: this.view.lastSeq,
      onFrame: (frame) => this.#onFrame(frame),
      onState: (state) => {
        // A paused stream's own `stopped` is not news: the tab is hidden and comes back `connecting`.
        if (this.#connection === connection) this.screen.update((screen) => ({ ...screen, connection: state }));
      },
    });
    this.#connection = connection;
    await connection.run();
  }

  #onFrame(frame: StreamFrame): void {
    const event = eventOfFrame(sessionEventPayloadSchemas, frame, 'session') as SessionEvent | null;
    if (event === null) return;
    const fresh = event.data.session_id === this.sessionId && event.data.seq > this.view.lastSeq;
    this.dispatch({ type: 'event', event, receivedAt: (this.#options.now ?? Date.now)() });
    if (fresh) for (const listener of [...this.#eventListeners]) listener(event);
  }
}
