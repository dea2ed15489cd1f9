import type {
  ChangedFile,
  Checkpoint,
  FilePatch,
  HostClient,
  RevertBody,
  RewindResult,
  SessionChanges,
  SessionEvent,
  TurnChanges,
} from '@outrigger/host-api';
import { CoalescedLoad } from './coalescedLoad.ts';
import { messageOf } from './format.ts';
import type { Timers } from './streamConnection.ts';
import { ValueStore } from './valueStore.ts';

/**
 * The last change to the files that can be undone: a rewind to before a turn, a revert of a file or a hunk,
 * or the undo of one of those (which says which it undid).
 */
export interface FilesRewound {
  kind: 'rewind' | 'revert' | 'undo';
  /** The turn a rewind went back to before; for an undo, the turn of the rewind it undid. */
  turnId: string | null;
  target: string;
  safetyCheckpoint: Checkpoint;
  files: readonly ChangedFile[];
}

export interface ChangesScreen {
  /** Null until the first answer. */
  changes: SessionChanges | null;
  loadError: string | null;
  /** Checkpoints the stream said failed, by turn: a turn whose start failed is not in `changes` at all. */
  checkpointErrors: Readonly<Record<string, string>>;
  lastRewound: FilesRewound | null;
  /** Bumped by every answer: a diff against the working directory reloads on it. */
  version: number;
}

export interface ChangesStoreOptions {
  timers?: Timers;
  /** How long a burst of tool results is gathered before the changes reload (a running turn's live diff). */
  liveDelayMs?: number;
}

/**
 * A session's changes as its checkpoints record them (`listChanges`): every user turn's files and the
 * session's since its first. The session stream says when they moved: a `checkpoint` (a turn started or
 * ended), `files_rewound` (a rewind or a revert, here or in another tab), `worktree`; and while a turn runs,
 * each tool result (a command may have written files) reloads them, gathered, so its diff is live.
 */
export class ChangesStore {
  readonly screen = new ValueStore<ChangesScreen>({
    changes: null,
    loadError: null,
    checkpointErrors: {},
    lastRewound: null,
    version: 0,
  });
  readonly sessionId: string;
  readonly #client: HostClient;
  readonly #loads: CoalescedLoad;

  constructor(client: HostClient, sessionId: string, options: ChangesStoreOptions = {}) {
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

  reload(): Promise<void> {
    return this.#loads.now();
  }

  /** A new event of the session's stream (the store applies each once, as the session store hands them on). */
  onEvent(event: SessionEvent): void {
    switch (event.type) {
      case 'checkpoint': {
        const { turnId, error } = event.data;
        if (turnId !== null && error !== null)
          this.screen.update((screen) => ({
            ...screen,
            checkpointErrors: { ...screen.checkpointErrors, [turnId]: error },
          }));
        void this.#loads.now();
        return;
      }
      case 'files_rewound':
        this.#rewound(event.data);
        void this.#loads.now();
        return;
      case 'worktree':
        void this.#loads.now();
        return;
      case 'tool_result':
        this.#loads.soon();
        return;
      default:
        return;
    }
  }

  turn(turnId: string): TurnChanges | undefined {
    return this.screen.get().changes?.turns.find((turn) => turn.turnId === turnId);
  }

  patch(from: string, to: string, path: string): Promise<FilePatch> {
    return this.#client.call('getFilePatch', { params: { id: this.sessionId }, query: { from, to, path } });
  }

  /** What rewinding to before `turnId` would change, changing nothing. */
  previewRewind(turnId: string): Promise<RewindResult> {
    return this.#client.call('rewind', { params: { id: this.sessionId }, body: { turnId, dryRun: true } });
  }

  async rewind(turnId: string): Promise<RewindResult> {
    const result = await this.#client.call('rewind', { params: { id: this.sessionId }, body: { turnId } });
    return this.#applied(result, turnId);
  }

  /** Takes the files back to before the last rewind or revert. */
  async undo(rewound: FilesRewound): Promise<RewindResult> {
    const result = await this.#client.call('rewind', {
      params: { id: this.sessionId },
      body: { checkpointId: rewound.safetyCheckpoint.id },
    });
    return this.#applied(result, null);
  }

  async revert(body: Omit<RevertBody, 'dryRun'>): Promise<RewindResult> {
    const result = await this.#client.call('revert', { params: { id: this.sessionId }, body });
    return this.#applied(result, null);
  }

  async #applied(result: RewindResult, turnId: string | null): Promise<RewindResult> {
    if (result.safetyCheckpoint !== null)
      this.#rewound({ turnId, target: result.target, safetyCheckpoint: result.safetyCheckpoint, files: result.files });
    await this.#loads.now();
    return result;
  }

  /** One rewind, whether this tab's answer or the stream says it first (the other is then known). */
  #rewound(data: Omit<FilesRewound, 'kind'>): void {
    this.screen.update((screen) => {
      const last = screen.lastRewound;
      if (last !== null && last.safetyCheckpoint.id === data.safetyCheckpoint.id) return screen;
      // Back to the state the last one saved: that is its undo (a rewind by checkpoint names no turn).
      const undid = last !== null && data.target === last.safetyCheckpoint.id;
      const lastRewound: FilesRewound = undid
        ? { ...data, kind: 'undo', turnId: last.kind === 'rewind' ? last.turnId : null }
        : { ...data, kind: data.turnId === null ? 'revert' : 'rewind' };
      return { ...screen, lastRewound };
    });
  }

  async #load(): Promise<void> {
    try {
      const changes = await this.#client.call('listChanges', { params: { id: this.sessionId } });
      this.screen.update((screen) => ({ ...screen, changes, loadError: null, version: screen.version + 1 }));
    } catch (error) {
      this.screen.update((screen) => ({ ...screen, loadError: messageOf(error) }));
    }
  }
}

/**
 * Why a turn shows no diff, if it shows none: its own error, one the stream said, or the checkpoints that
 * cannot be read at all. Quiet words for its card, never a failed turn.
 */
export function turnChangesError(screen: ChangesScreen, turnId: string): string | null {
  const turn = screen.changes?.turns.find((candidate) => candidate.turnId === turnId);
  if (turn?.error != null) return turn.error;
  if (turn !== undefined) return null;
  return screen.checkpointErrors[turnId] ?? screen.changes?.error ?? null;
}
