import type { HistoryNote, HistorySession, HostClient } from '@outrigger/host-api';
import { messageOf } from './format.ts';
import { sessionReducer } from './sessionReducer.ts';
import { emptySessionState, type SessionViewState } from './sessionState.ts';
import { ValueStore } from './valueStore.ts';

/** A Claude Code transcript as far as it is read: its rows folded like a session's, its notes, its session. */
export interface HistoryTranscriptScreen {
  /** Null until the first page arrived. */
  session: HistorySession | null;
  notes: readonly HistoryNote[];
  /** The rows read so far, in the shape `timeline` lays out (no turns: a transcript has no Outrigger turns). */
  view: SessionViewState;
  loaded: boolean;
  loadError: string | null;
  loadingOlder: boolean;
}

/**
 * A Claude Code transcript read page by page (`getHistoryMessages`), newest page first, older ones as the person
 * scrolls up, each folded by the session reducer's own older-page step: the rows then lay out and render as a live
 * session's do. `before` starts it earlier: the part of a transcript an Outrigger session continued from
 * (`continuedFrom.rows`), without the Outrigger turns after it.
 */
export class HistoryTranscriptStore {
  readonly screen: ValueStore<HistoryTranscriptScreen>;
  readonly claudeSessionId: string;
  readonly #client: HostClient;
  readonly #before: number | undefined;
  #generation = 0;

  constructor(client: HostClient, claudeSessionId: string, options: { before?: number } = {}) {
    this.#client = client;
    this.claudeSessionId = claudeSessionId;
    this.#before = options.before;
    this.screen = new ValueStore<HistoryTranscriptScreen>({
      session: null,
      notes: [],
      view: emptySessionState(claudeSessionId),
      loaded: false,
      loadError: null,
      loadingOlder: false,
    });
  }

  async start(): Promise<void> {
    const generation = ++this.#generation;
    try {
      const transcript = await this.#client.call('getHistoryMessages', {
        params: { claudeSessionId: this.claudeSessionId },
        query: { before: this.#before },
      });
      if (generation !== this.#generation) return;
      this.screen.update((screen) => ({
        ...screen,
        session: transcript.session,
        notes: transcript.notes,
        view: sessionReducer(emptySessionState(this.claudeSessionId), { type: 'olderPage', page: transcript.page }),
        loaded: true,
        loadError: null,
      }));
    } catch (error) {
      if (generation === this.#generation) this.screen.update((screen) => ({ ...screen, loadError: messageOf(error) }));
    }
  }

  stop(): void {
    this.#generation += 1;
  }

  async loadOlder(): Promise<void> {
    const screen = this.screen.get();
    if (screen.loadingOlder || !screen.view.hasOlder) return;
    const generation = this.#generation;
    const first = screen.view.rows[screen.view.order[0] ?? ''];
    this.screen.update((s) => ({ ...s, loadingOlder: true }));
    try {
      const transcript = await this.#client.call('getHistoryMessages', {
        params: { claudeSessionId: this.claudeSessionId },
        query: { before: first?.position ?? this.#before },
      });
      if (generation !== this.#generation) return;
      this.screen.update((s) => ({
        ...s,
        view: sessionReducer(s.view, { type: 'olderPage', page: transcript.page }),
        loadError: null,
      }));
    } catch (error) {
      if (generation === this.#generation) this.screen.update((s) => ({ ...s, loadError: messageOf(error) }));
    } finally {
      this.screen.update((s) => ({ ...s, loadingOlder: false }));
    }
  }
}
