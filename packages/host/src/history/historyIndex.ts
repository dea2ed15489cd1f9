import type { ClaudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import type { HistoryTranscriptRecord, HostStore } from '../store/hostStore.ts';
import { projectFolders, projectsDirOf, type TranscriptFile, transcriptFilesIn } from './transcriptFiles.ts';

/** What the index reads a transcript with: the SDK's own summary and conversation, in its worker thread. */
export type IndexSdk = Pick<ClaudeHistorySdk, 'listSessions' | 'getSessionInfo' | 'getSessionMessages'>;

type SessionInfo = Awaited<ReturnType<IndexSdk['getSessionInfo']>>;

export interface HistoryIndexOptions {
  readonly configDir: string;
  readonly store: Pick<HostStore, 'listHistoryTranscripts' | 'updateHistoryTranscripts'>;
  readonly sdk: IndexSdk;
  readonly now?: () => number;
  /**
   * With this many transcripts to read, one `listSessions()` (every summary in one pass, ~1.2 s for 2,000) is
   * cheaper than a `getSessionInfo` each (~1.5–3.4 ms apiece); below it, only the changed files are read.
   */
  readonly listAllAt?: number;
  /** Called after each batch the store took, with the sessions it added, changed or dropped. */
  readonly onIndexed?: (claudeSessionIds: readonly string[]) => void;
  /** A transcript the SDK failed on (the worker died, the file went): left for the next refresh. */
  readonly onReadFailed?: (error: unknown) => void;
}

/** What one refresh did. */
export interface RefreshResult {
  readonly read: number;
  readonly dropped: number;
  readonly failed: number;
}

/** Rows written per transaction: the list fills while a first index runs, and no write holds the store long. */
const BATCH = 100;
/** SDK reads in flight at once: the worker is never idle between two, and the host never queues thousands. */
const READS_AT_ONCE = 4;
const LIST_ALL_AT = 50;

/**
 * The index of Claude Code's transcripts, kept in the store (what a list shows without reading a transcript)
 * and in memory (what `ClaudeHistory` lists from). A refresh lists the project folders, stats each transcript
 * and reads, with the SDK, only those that are new or whose size or modification time changed; rows of files
 * that went are dropped. The stat is taken before the read, so a write that lands during the read changes
 * the file's stat again and the next refresh reads it once more: the index never keeps a stale row as current.
 * Refreshes run one at a time; one asked for meanwhile runs after it, for every folder asked for.
 */
export class HistoryIndex {
  readonly #options: HistoryIndexOptions;
  readonly #now: () => number;
  readonly #records = new Map<string, HistoryTranscriptRecord>();
  #loaded: Promise<void> | undefined;
  #running: Promise<RefreshResult> | undefined;
  /** Folders a refresh was asked for while one ran; `all`: every folder. */
  #pending: Set<string> | 'all' | undefined;
  #closed = false;

  constructor(options: HistoryIndexOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get projectsDir(): string {
    return projectsDirOf(this.#options.configDir);
  }

  /** The rows as the store keeps them, read once. */
  load(): Promise<void> {
    this.#loaded ??= this.#options.store.listHistoryTranscripts().then((records) => {
      for (const record of records) this.#records.set(record.path, record);
    });
    return this.#loaded;
  }

  /** Every indexed transcript. */
  records(): IterableIterator<HistoryTranscriptRecord> {
    return this.#records.values();
  }

  /** The indexed transcripts of one session id, newest first. */
  recordsOf(claudeSessionId: string): HistoryTranscriptRecord[] {
    return [...this.#records.values()]
      .filter((record) => record.claudeSessionId === claudeSessionId)
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
  }

  /** Brings the rows of `folders` (all of them when absent) up to date with the files. */
  refresh(folders?: readonly string[]): Promise<RefreshResult> {
    if (this.#running !== undefined) {
      if (folders === undefined || this.#pending === 'all') this.#pending = 'all';
      else this.#pending = new Set([...(this.#pending ?? []), ...folders]);
      return this.#running.then(() => this.#running ?? { read: 0, dropped: 0, failed: 0 });
    }
    const run = this.#refreshOnce(folders).finally(() => {
      this.#running = undefined;
      const next = this.#pending;
      this.#pending = undefined;
      if (next !== undefined && !this.#closed) void this.refresh(next === 'all' ? undefined : [...next]);
    });
    this.#running = run;
    return run;
  }

  /** The one file as it is now: read again when it changed, dropped when it went. */
  async refreshFile(file: TranscriptFile | undefined, path: string): Promise<HistoryTranscriptRecord | undefined> {
    await this.load();
    const known = this.#records.get(path);
    if (file === undefined) {
      if (known !== undefined) await this.#write([], [known]);
      return undefined;
    }
    if (known !== undefined && unchanged(known, file)) return known;
    const [record] = await this.#read([file], false);
    if (record !== undefined) await this.#write([record], []);
    return record;
  }

  close(): void {
    this.#closed = true;
  }

  /** Resolves once no refresh runs (its failure is the caller's who asked for it). */
  async settled(): Promise<void> {
    while (this.#running !== undefined) await this.#running.catch(() => undefined);
  }

  async #refreshOnce(folders: readonly string[] | undefined): Promise<RefreshResult> {
    await this.load();
    const scope = folders === undefined ? await projectFolders(this.projectsDir) : [...new Set(folders)];
    const files = (await Promise.all(scope.map((folder) => transcriptFilesIn(folder)))).flat();
    const seen = new Set(files.map((file) => file.path));
    const inScope =
      folders === undefined ? () => true : (record: HistoryTranscriptRecord) => scope.includes(folderOf(record.path));
    const gone = [...this.#records.values()].filter((record) => inScope(record) && !seen.has(record.path));
    const changed = files.filter((file) => {
      const known = this.#records.get(file.path);
      return known === undefined || !unchanged(known, file);
    });
    if (gone.length > 0) await this.#write([], gone);
    let read = 0;
    let failed = 0;
    const listAll = changed.length >= (this.#options.listAllAt ?? LIST_ALL_AT);
    const summaries = listAll ? await this.#allSummaries() : undefined;
    for (let start = 0; start < changed.length && !this.#closed; start += BATCH) {
      const batch = changed.slice(start, start + BATCH);
      const records = await this.#read(batch, summaries ?? false);
      failed += batch.length - records.length;
      read += records.length;
      await this.#write(records, []);
    }
    return { read, dropped: gone.length, failed };
  }

  /** Every summary the SDK has, by session id; undefined when the one pass failed (each file is read alone then). */
  async #allSummaries(): Promise<Map<string, NonNullable<SessionInfo>> | undefined> {
    try {
      const all = await this.#options.sdk.listSessions();
      return new Map(all.map((info) => [info.sessionId, info]));
    } catch (error) {
      this.#options.onReadFailed?.(error);
      return undefined;
    }
  }

  /**
   * The files' rows, read with the SDK. A file the SDK cannot summarise (empty, only damaged lines, no
   * conversation) gets a row without a `cwd`, so it is not read again until it changes; a file whose read
   * failed gets none (the next refresh tries again).
   */
  async #read(
    files: readonly TranscriptFile[],
    summaries: Map<string, NonNullable<SessionInfo>> | false,
  ): Promise<HistoryTranscriptRecord[]> {
    const { sdk } = this.#options;
    const records: HistoryTranscriptRecord[] = [];
    let next = 0;
    const worker = async () => {
      while (next < files.length && !this.#closed) {
        const file = files[next++]!;
        try {
          // Not in the one pass (it skips what it cannot summarise): asked alone, which says so too.
          const info =
            (summaries === false ? undefined : summaries.get(file.claudeSessionId)) ??
            (await sdk.getSessionInfo(file.claudeSessionId));
          const messageCount = info === undefined ? 0 : (await sdk.getSessionMessages(file.claudeSessionId)).length;
          records.push(recordOf(file, info, messageCount, this.#now()));
        } catch (error) {
          this.#options.onReadFailed?.(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, files.length) }, worker));
    return records;
  }

  async #write(put: readonly HistoryTranscriptRecord[], drop: readonly HistoryTranscriptRecord[]): Promise<void> {
    if (put.length === 0 && drop.length === 0) return;
    await this.#options.store.updateHistoryTranscripts(
      put,
      drop.map((record) => record.path),
    );
    for (const record of drop) this.#records.delete(record.path);
    for (const record of put) this.#records.set(record.path, record);
    this.#options.onIndexed?.([...new Set([...put, ...drop].map((record) => record.claudeSessionId))]);
  }
}

function unchanged(record: HistoryTranscriptRecord, file: TranscriptFile): boolean {
  return record.size === file.size && record.mtimeMs === file.mtimeMs;
}

function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

function recordOf(
  file: TranscriptFile,
  info: SessionInfo,
  messageCount: number,
  indexedAt: number,
): HistoryTranscriptRecord {
  return {
    path: file.path,
    claudeSessionId: file.claudeSessionId,
    cwd: nonEmpty(info?.cwd),
    summary: nonEmpty(info?.summary),
    firstPrompt: nonEmpty(info?.firstPrompt),
    customTitle: nonEmpty(info?.customTitle),
    gitBranch: nonEmpty(info?.gitBranch),
    createdAt: typeof info?.createdAt === 'number' ? info.createdAt : null,
    mtimeMs: file.mtimeMs,
    size: file.size,
    messageCount,
    indexedAt,
  };
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value;
}
