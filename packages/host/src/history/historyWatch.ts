import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { projectFolders } from './transcriptFiles.ts';

export interface HistoryWatchOptions {
  readonly projectsDir: string;
  /** A burst of changes is reported once, this long after its first event. */
  readonly debounceMs?: number;
  /** The folders whose transcripts changed (a project folder, or every one when `projects` itself changed). */
  readonly onChange: (folders: readonly string[] | 'all') => void;
}

/** Claude Code appends a line per message: a streaming session writes many times a second. */
const DEBOUNCE_MS = 300;

/**
 * A directory watch of Claude Code's transcripts without polling: one `fs.watch` on `projects` (a new project
 * folder) and one on each project folder (a transcript created, grown or removed), never recursive, so the
 * subagents' folders and tool outputs below a session add no watches. Events are coalesced per folder and
 * reported `debounceMs` after the first of a burst; nothing runs while nothing changes. When `projects` does not exist yet,
 * its nearest existing ancestor is watched until it appears.
 */
export class HistoryWatch {
  readonly #options: HistoryWatchOptions;
  readonly #folders = new Map<string, FSWatcher>();
  #root: FSWatcher | undefined;
  #rootIsParent = false;
  #dirty = new Set<string>();
  #allDirty = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: HistoryWatchOptions) {
    this.#options = options;
  }

  /** Watches `projects` (or its parent until it exists) and every project folder in it now. */
  async start(): Promise<void> {
    if (this.#closed) return;
    this.#watchRoot();
    await this.sync();
  }

  /** Adds watches for folders that appeared and drops those of folders that went. */
  async sync(): Promise<void> {
    if (this.#closed) return;
    if (this.#rootIsParent || this.#root === undefined) this.#watchRoot();
    const folders = new Set(await projectFolders(this.#options.projectsDir));
    if (this.#closed) return;
    for (const [folder, watcher] of this.#folders) {
      if (folders.has(folder)) continue;
      watcher.close();
      this.#folders.delete(folder);
    }
    for (const folder of folders) if (!this.#folders.has(folder)) this.#watchFolder(folder);
  }

  /** How many directories are watched (for the tests). */
  get watched(): number {
    return this.#folders.size + (this.#root === undefined ? 0 : 1);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#root?.close();
    this.#root = undefined;
    for (const watcher of this.#folders.values()) watcher.close();
    this.#folders.clear();
  }

  #watchRoot(): void {
    const { projectsDir } = this.#options;
    this.#root?.close();
    this.#root = undefined;
    const direct = this.#tryWatch(projectsDir, () => this.#mark('all'));
    if (direct !== undefined) {
      this.#root = direct;
      this.#rootIsParent = false;
      return;
    }
    // No `projects` yet (Claude Code never ran here, or not with this config dir): the nearest directory that
    // exists is watched for the next step of the path to appear.
    let parent = projectsDir;
    while (dirname(parent) !== parent) {
      const child = basename(parent);
      parent = dirname(parent);
      const watcher = this.#tryWatch(parent, (name) => {
        if (name === undefined || name === child) this.#mark('all');
      });
      if (watcher !== undefined) {
        this.#root = watcher;
        this.#rootIsParent = true;
        return;
      }
    }
  }

  #watchFolder(folder: string): void {
    const watcher = this.#tryWatch(folder, (name) => {
      // Only a transcript's own file: a session's folder beside it (subagents, tool results) is not one.
      if (name === undefined || name.endsWith('.jsonl')) this.#mark(folder);
    });
    if (watcher !== undefined) this.#folders.set(folder, watcher);
  }

  #tryWatch(path: string, onEvent: (name: string | undefined) => void): FSWatcher | undefined {
    try {
      const watcher = watch(path, { persistent: false }, (_type, name) =>
        onEvent(typeof name === 'string' ? name : undefined),
      );
      // A watched folder that is removed ends its watch with an error: the next sync sees it gone.
      watcher.on('error', () => {
        watcher.close();
        if (this.#root === watcher) this.#root = undefined;
        for (const [folder, each] of this.#folders) if (each === watcher) this.#folders.delete(folder);
        this.#mark('all');
      });
      return watcher;
    } catch {
      return undefined;
    }
  }

  #mark(folder: string | 'all'): void {
    if (this.#closed) return;
    if (folder === 'all') this.#allDirty = true;
    else this.#dirty.add(folder);
    // Not pushed back by later events: a session that streams for minutes is still seen every `debounceMs`.
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#flush(), this.#options.debounceMs ?? DEBOUNCE_MS);
    this.#timer.unref();
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#closed) return;
    const folders = this.#allDirty ? 'all' : [...this.#dirty];
    this.#allDirty = false;
    this.#dirty = new Set();
    this.#options.onChange(folders);
  }
}
