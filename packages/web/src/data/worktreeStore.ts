import type {
  HostClient,
  SessionEvent,
  WorktreeActionBody,
  WorktreeActionResponse,
  WorktreeStatus,
} from '@outrigger/host-api';
import { CoalescedLoad } from './coalescedLoad.ts';
import { messageOf } from './format.ts';
import type { Timers } from './streamConnection.ts';
import { ValueStore } from './valueStore.ts';

export interface WorktreeScreen {
  /** Null until the first answer. */
  status: WorktreeStatus | null;
  loadError: string | null;
}

/**
 * A worktree session's branch against its base (`getWorktree`), and its merge, keep and discard. Reloaded
 * when the stream says the worktree or its files moved: `worktree`, `checkpoint` (a turn began or ended),
 * `files_rewound`; during a turn, gathered tool results.
 */
export class WorktreeStore {
  readonly screen = new ValueStore<WorktreeScreen>({ status: null, loadError: null });
  readonly sessionId: string;
  readonly #client: HostClient;
  readonly #loads: CoalescedLoad;

  constructor(client: HostClient, sessionId: string, options: { timers?: Timers; liveDelayMs?: number } = {}) {
    this.#client = client;
    this.sessionId = sessionId;
    this.#loads = new CoalescedLoad(() => this.#load(), { timers: options.timers, delayMs: options.liveDelayMs });
  }

  start(): Promise<void> {
    return this.#loads.now();
  }

  stop(): void {
    this.#loads.stop();
  }

  onEvent(event: SessionEvent): void {
    if (event.type === 'worktree' || event.type === 'checkpoint' || event.type === 'files_rewound')
      void this.#loads.now();
    else if (event.type === 'tool_result') this.#loads.soon();
  }

  /**
   * Merge, keep or discard. A merge that conflicts is refused whole (`409 conflict`, one detail per file):
   * the error is the caller's to show, and nothing changed.
   */
  async act(body: WorktreeActionBody): Promise<WorktreeActionResponse> {
    const response = await this.#client.call('worktreeAction', { params: { id: this.sessionId }, body });
    this.screen.update((screen) =>
      screen.status === null ? screen : { ...screen, status: { ...screen.status, worktree: response.worktree } },
    );
    await this.#loads.now();
    return response;
  }

  async #load(): Promise<void> {
    try {
      const status = await this.#client.call('getWorktree', { params: { id: this.sessionId } });
      this.screen.set({ status, loadError: null });
    } catch (error) {
      this.screen.update((screen) => ({ ...screen, loadError: messageOf(error) }));
    }
  }
}
