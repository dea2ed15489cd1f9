import { join } from 'node:path';
import type { ClaudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import {
  claudeSessionIdSchema,
  type HistoryChangedEvent,
  type HistoryList,
  type HistoryMessagesQuery,
  type HistoryNote,
  type HistorySession,
  type HistoryTranscript,
  hostLimits,
} from '@outrigger/host-api';
import { errorName } from '../logging/errorName.ts';
import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import type { HistoryTranscriptRecord, HostStore } from '../store/hostStore.ts';
import type { ClaudeHistoryReader, TranscriptContent } from './claudeHistoryReader.ts';
import { type CwdPlace, cwdPlaces } from './cwdPlaces.ts';
import { HistoryIndex } from './historyIndex.ts';
import {
  buildHistoryList,
  historySessionOf,
  isListable,
  type ListedRecord,
  ownersById,
  sessionRecords,
} from './historyList.ts';
import { HistoryWatch } from './historyWatch.ts';
import { TranscriptContentCache } from './transcriptCache.ts';
import type { TranscriptLocation } from './transcriptContent.ts';
import { projectFolders, statTranscript } from './transcriptFiles.ts';

const NO_SUCH_SESSION = '00000000-0000-4000-8000-000000000000';

/** A session found under the allowed roots: its index row and what the routes show of it. */
interface Located {
  readonly record: ListedRecord;
  readonly session: HistorySession;
}

export interface ClaudeHistoryOptions {
  /** The Claude config dir whose `projects` folder holds the transcripts. */
  readonly configDir: string;
  readonly sdk: ClaudeHistorySdk;
  readonly store: Pick<HostStore, 'listHistoryTranscripts' | 'updateHistoryTranscripts' | 'listProviderSessionOwners'>;
  /** `--allow-root` directories; empty: any directory. */
  readonly allowRoots: readonly string[];
  readonly logger?: RuntimeLogger;
  readonly now?: () => number;
  /** Watch the folders for changes (default); off: every list looks at the files first. */
  readonly watch?: boolean;
  readonly debounceMs?: number;
  /** See `HistoryIndexOptions.listAllAt`. */
  readonly listAllAt?: number;
  /** A transcript's rows (default: `readTranscriptContent`, cached while the files keep their size and time). */
  readonly readContent?: (sdk: ClaudeHistorySdk, entry: TranscriptLocation) => Promise<TranscriptContent>;
}

/**
 * Claude Code's history on this machine, for the history routes and the sessions that continue it. Nothing is
 * read before the first use (a list, a page, a session asked for): then the stored index is loaded, the watch
 * starts and a refresh brings the index up to date in the background (`indexState: 'indexing'` until it has).
 * Every later change arrives through the watch. Only directories under the allowed roots are listed or read:
 * a session elsewhere is counted (`hiddenOutsideRoots`) and is otherwise as unknown as one that does not exist.
 */
export class ClaudeHistory implements ClaudeHistoryReader {
  readonly configDir: string;
  readonly #options: ClaudeHistoryOptions;
  readonly #now: () => number;
  readonly #index: HistoryIndex;
  readonly #watch: HistoryWatch | undefined;
  readonly #contents: TranscriptContentCache;
  readonly #listeners = new Set<(event: HistoryChangedEvent) => void>();
  #started: Promise<void> | undefined;
  #firstIndex: Promise<void> | undefined;
  #ready = false;
  #revision = 0;
  #closed = false;

  constructor(options: ClaudeHistoryOptions) {
    this.configDir = options.configDir;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#index = new HistoryIndex({
      configDir: options.configDir,
      store: options.store,
      sdk: options.sdk,
      now: this.#now,
      ...(options.listAllAt === undefined ? {} : { listAllAt: options.listAllAt }),
      onIndexed: (ids) => this.#changed(ids),
      onReadFailed: (error) =>
        options.logger?.warn(
          { event: 'history.read_failed', error: errorName(error) },
          'a Claude Code transcript could not be read; it is tried again at the next change',
        ),
    });
    this.#watch =
      options.watch === false
        ? undefined
        : new HistoryWatch({
            projectsDir: this.#index.projectsDir,
            ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
            onChange: (folders) => this.#filesChanged(folders),
          });
    this.#contents = new TranscriptContentCache(options.readContent === undefined ? {} : { read: options.readContent });
  }

  /**
   * A list is usually followed by opening one of its sessions. Loading the SDK in its worker thread takes most of a
   * first page's time (275–370 ms against 84–175 ms warm), so the list starts the worker, without waiting: a
   * lookup of an id no file has. The worker retires again 30 s after its last call.
   */
  #warmReader(): void {
    this.#options.sdk.getSessionInfo(NO_SUCH_SESSION).catch(() => undefined);
  }

  /** The first index of this run (tests and the bench wait for it). */
  async indexed(): Promise<void> {
    await this.#start();
    await this.#firstIndex;
  }

  async list(query: { q?: string | undefined } = {}): Promise<HistoryList> {
    await this.#start();
    if (this.#watch === undefined) await this.#index.refresh();
    this.#warmReader();
    const records = sessionRecords(this.#index.records());
    const [places, owners] = await Promise.all([
      cwdPlaces(
        records.map((record) => record.cwd),
        this.#options.allowRoots,
      ),
      this.#options.store.listProviderSessionOwners().then(ownersById),
    ]);
    return buildHistoryList({
      records,
      places,
      owners,
      q: query.q,
      now: this.#now(),
      configDir: this.configDir,
      indexState: this.#ready ? 'ready' : 'indexing',
      revision: this.#revision,
    });
  }

  async session(claudeSessionId: string): Promise<HistorySession | undefined> {
    return (await this.#located(claudeSessionId))?.session;
  }

  async content(claudeSessionId: string): Promise<TranscriptContent | undefined> {
    return (await this.#read(claudeSessionId))?.content;
  }

  /** A page of the transcript, newest rows first (`before`: a row position); undefined when it is not readable here. */
  async page(claudeSessionId: string, query: HistoryMessagesQuery): Promise<HistoryTranscript | undefined> {
    const read = await this.#read(claudeSessionId);
    if (read === undefined) return undefined;
    const { located, content } = read;
    const limit = query.limit ?? hostLimits.messagesPageDefault;
    const before = query.before ?? Number.POSITIVE_INFINITY;
    const older = content.rows.filter((row) => row.position < before);
    const messages = older.slice(Math.max(0, older.length - limit));
    const notes: HistoryNote[] = [...content.notes];
    if (!located.session.cwdExists) {
      notes.push({
        kind: 'cwd_missing',
        message: `${located.session.cwd} no longer exists: the session can be read, not continued`,
        count: null,
      });
    }
    return {
      session: located.session,
      page: { messages, turns: [], hasMore: older.length > messages.length },
      totalRows: content.rows.length,
      notes,
    };
  }

  onChange(listener: (event: HistoryChangedEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the watch and lets a running refresh end after its current batch (the store may close next). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watch?.close();
    this.#index.close();
    this.#listeners.clear();
    await this.#firstIndex?.catch(() => undefined);
    await this.#index.settled();
  }

  #start(): Promise<void> {
    this.#started ??= (async () => {
      await this.#index.load();
      if (this.#closed) return;
      await this.#watch?.start();
      this.#firstIndex = this.#index.refresh().then(
        () => this.#markReady(),
        (error: unknown) => {
          this.#options.logger?.warn(
            { event: 'history.index_failed', error: errorName(error) },
            'the index of Claude Code transcripts could not be refreshed',
          );
          this.#markReady();
        },
      );
    })();
    return this.#started;
  }

  #markReady(): void {
    if (this.#ready) return;
    this.#ready = true;
    // A client showing `indexing` refetches to see `ready`, even when the refresh changed nothing.
    this.#changed([]);
  }

  #filesChanged(folders: readonly string[] | 'all'): void {
    if (this.#closed) return;
    // A new folder is watched before it is read: a transcript written into it meanwhile is then an event.
    const watched = folders === 'all' ? (this.#watch?.sync() ?? Promise.resolve()) : Promise.resolve();
    const refreshed = watched.then(() => this.#index.refresh(folders === 'all' ? undefined : folders));
    refreshed.catch((error: unknown) =>
      this.#options.logger?.warn(
        { event: 'history.index_failed', error: errorName(error) },
        'the index of Claude Code transcripts could not be refreshed',
      ),
    );
  }

  #changed(claudeSessionIds: readonly string[]): void {
    if (this.#closed) return;
    this.#revision += 1;
    const event = { revision: this.#revision, claudeSessionIds: [...claudeSessionIds] };
    for (const listener of this.#listeners) listener(event);
  }

  /**
   * The session's transcript looked at again (it may have changed since the last event, or be new and not
   * indexed yet), and its place: undefined for an id that is no UUID, no transcript, one the SDK could not
   * summarise, or one outside the allowed roots.
   */
  async #located(claudeSessionId: string): Promise<Located | undefined> {
    if (!claudeSessionIdSchema.safeParse(claudeSessionId).success) return undefined;
    await this.#start();
    const known = this.#index.recordsOf(claudeSessionId).map((record) => record.path);
    const paths =
      known.length > 0
        ? known
        : (await projectFolders(this.#index.projectsDir)).map((folder) => join(folder, `${claudeSessionId}.jsonl`));
    const records: HistoryTranscriptRecord[] = [];
    for (const path of paths) {
      const record = await this.#index.refreshFile(await statTranscript(path), path);
      if (record !== undefined) records.push(record);
    }
    const [record] = sessionRecords(records);
    if (record === undefined || !isListable(record)) return undefined;
    const place: CwdPlace = (await cwdPlaces([record.cwd], this.#options.allowRoots)).get(record.cwd)!;
    if (!place.inside) return undefined;
    const owners = ownersById(await this.#options.store.listProviderSessionOwners());
    return {
      record,
      session: historySessionOf(record, place, owners.get(claudeSessionId) ?? null, this.#now()),
    };
  }

  /** The located session and its rows; undefined also when the file went between the look and the read. */
  async #read(claudeSessionId: string): Promise<{ located: Located; content: TranscriptContent } | undefined> {
    const located = await this.#located(claudeSessionId);
    if (located === undefined) return undefined;
    const { record } = located;
    try {
      const content = await this.#contents.content(this.#options.sdk, {
        claudeSessionId: record.claudeSessionId,
        cwd: record.cwd,
        path: record.path,
      });
      return { located, content };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
