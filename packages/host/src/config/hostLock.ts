import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './dataDirPrivacy.ts';

/** The data directory's lock file: which host serves it, and where it listens. */
export const HOST_LOCK_FILE = 'host.json';

/** What `DATA/host.json` holds. */
export interface HostLockInfo {
  readonly pid: number;
  /** Where the host listens (`http://127.0.0.1:PORT`); null while it is still starting. */
  readonly baseUrl: string | null;
  /** `Date.now()` when the host took the lock; with the pid, what tells this lock from an older one. */
  readonly startedAt: number;
  readonly version: 1;
}

/** The lock a starting host holds on its data directory until it has closed. */
export interface HostLock {
  readonly dataDir: string;
  readonly file: string;
  /** What the file holds now. */
  readonly info: HostLockInfo;
  /** Writes the URL the host listens on into the file (whole or not at all: a reader never sees half a file). */
  announce(baseUrl: string): Promise<void>;
  /** Removes the file if it is still this lock's (same pid and startedAt); again: nothing. */
  release(): Promise<void>;
}

/** Another live host holds the data directory: a second one would share its SQLite store. */
export class HostAlreadyRunningError extends Error {
  readonly pid: number;
  readonly baseUrl: string | null;
  readonly dataDir: string;

  constructor(dataDir: string, holder: { readonly pid: number; readonly baseUrl: string | null }) {
    const where = holder.baseUrl === null ? 'is starting on' : 'serves';
    const at = holder.baseUrl === null ? '' : ` at ${holder.baseUrl}`;
    super(
      `another Outrigger host (pid ${holder.pid}) ${where} this data directory (${dataDir})${at}; ` +
        'stop it first, or pass another --data-dir',
    );
    this.name = 'HostAlreadyRunningError';
    this.pid = holder.pid;
    this.baseUrl = holder.baseUrl;
    this.dataDir = dataDir;
  }
}

export function hostLockPath(dataDir: string): string {
  return join(dataDir, HOST_LOCK_FILE);
}

/**
 * Takes the data directory for this host: creates `DATA/host.json` (0600) exclusively with `baseUrl: null`.
 *
 * A file already there is another host's while its pid lives (`process.kill(pid, 0)`; EPERM, another user's
 * process, counts as alive): refused with `HostAlreadyRunningError`. A file whose pid is dead, or that cannot be
 * read or parsed, was left by a host that did not close (SIGKILL, a power cut): it is stale, taken away and the
 * creation tried once more, so that of several starters racing for it exactly one wins.
 *
 * The file is written whole into a temporary file (`open(..., 'wx')`, 0600) and published with `link`, which
 * fails when the name exists exactly like `wx` does; a bare `wx` would let a racing starter read the file
 * between its creation and its write, judge the empty file corrupt and take it over: two winners.
 *
 * The pid alone cannot tell this process's own locks from the ones a previous process with the same pid left
 * (a container restarted: the host is pid 1 again), so this process keeps the locks it holds: a file with our
 * pid is live only while one of them is it. A host in this process that was never closed still holds its lock,
 * and a new host on its directory is refused, as from another process: its store may still be open.
 */
export async function acquireHostLock(dataDir: string): Promise<HostLock> {
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = hostLockPath(dataDir);
  const info: HostLockInfo = { pid: process.pid, baseUrl: null, startedAt: nextStartedAt(), version: 1 };
  // Held before the file is visible: a concurrent acquire in this process that reads it must find it live.
  heldHere.add(holdKey(info));
  let lock: HostLock | undefined;
  try {
    // Create; else refuse a live holder or take a stale file away and create once more. A third round only
    // comes when the file vanished in between (its holder released it), or a new stale one appeared.
    for (let round = 0; round < 3; round += 1) {
      if (await createExclusive(file, serialize(info))) {
        lock = new HeldHostLock(dataDir, file, info);
        return lock;
      }
      const found = await readLockFile(file);
      if (found === undefined) continue;
      if (found.record !== undefined && holderIsLive(found.record)) {
        throw new HostAlreadyRunningError(dataDir, found.record);
      }
      await takeAwayStale(file, found.identity);
    }
    throw new Error(`${file} keeps changing while this host tries to take it; is another host starting?`);
  } finally {
    if (lock === undefined) heldHere.delete(holdKey(info));
  }
}

/**
 * For clients: the lock of the host that serves `dataDir` while it lives; undefined when there is none (no file,
 * a dead pid, a file that cannot be read or parsed, a version this code does not know).
 */
export async function readHostLock(dataDir: string): Promise<HostLockInfo | undefined> {
  const found = await readLockFile(hostLockPath(dataDir));
  const record = found?.record;
  if (record === undefined || record.version !== 1 || !holderIsLive(record)) return undefined;
  return { pid: record.pid, baseUrl: record.baseUrl, startedAt: record.startedAt, version: 1 };
}

/** Whether `pid` names a live process: signal 0 checks without sending; EPERM is a live process of another user. */
export function processIsAlive(pid: number, kill: (pid: number, signal: 0) => void = process.kill): boolean {
  try {
    kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

class HeldHostLock implements HostLock {
  readonly dataDir: string;
  readonly file: string;
  #info: HostLockInfo;
  #released: Promise<void> | undefined;

  constructor(dataDir: string, file: string, info: HostLockInfo) {
    this.dataDir = dataDir;
    this.file = file;
    this.#info = info;
  }

  get info(): HostLockInfo {
    return this.#info;
  }

  async announce(baseUrl: string): Promise<void> {
    if (this.#released !== undefined) throw new Error(`the lock ${this.file} was released`);
    const next: HostLockInfo = { ...this.#info, baseUrl };
    const temporary = await writeTemporary(this.file, serialize(next));
    try {
      // Atomic: a reader sees the old file or the new one, never a half-written one.
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    this.#info = next;
  }

  release(): Promise<void> {
    this.#released ??= (async () => {
      try {
        const found = await readLockFile(this.file);
        const record = found?.record;
        if (record !== undefined && record.pid === this.#info.pid && record.startedAt === this.#info.startedAt) {
          await rm(this.file, { force: true });
        }
      } finally {
        // Only once the file is gone: until then an acquire in this process must still find it live.
        heldHere.delete(holdKey(this.#info));
      }
    })();
    return this.#released;
  }
}

/** A parsed lock file; `version` may be one this code does not know (a newer host's), whose pid still counts. */
interface LockRecord {
  readonly pid: number;
  readonly baseUrl: string | null;
  readonly startedAt: number;
  readonly version: number;
}

/** The locks this process holds, by pid and startedAt (startedAt is unique within the process). */
const heldHere = new Set<string>();
let lastStartedAt = 0;

function holdKey(info: { pid: number; startedAt: number }): string {
  return `${info.pid}:${info.startedAt}`;
}

function nextStartedAt(): number {
  lastStartedAt = Math.max(Date.now(), lastStartedAt + 1);
  return lastStartedAt;
}

function holderIsLive(record: LockRecord): boolean {
  if (record.pid === process.pid) return heldHere.has(holdKey(record));
  return processIsAlive(record.pid);
}

function serialize(info: HostLockInfo): string {
  return `${JSON.stringify(info)}\n`;
}

/** The record, or undefined for anything that is not one (pid 0 and negative pids name process groups). */
function parseRecord(text: string): LockRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { pid, baseUrl, startedAt, version } = value as Record<string, unknown>;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (typeof startedAt !== 'number' || !Number.isFinite(startedAt)) return undefined;
  if (typeof version !== 'number') return undefined;
  return { pid, baseUrl: typeof baseUrl === 'string' ? baseUrl : null, startedAt, version };
}

/**
 * The file as found: its identity (inode and exact text, what a takeover compares to be sure it removes the file
 * it judged) and its record when it parses. Undefined: there is no file. Exported for the takeover's test.
 */
export async function readLockFile(file: string): Promise<{ identity: string; record?: LockRecord } | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Unreadable (another user's, mode 000): stale by its inode alone.
    const stats = await lstat(file).catch(() => undefined);
    return stats === undefined ? undefined : { identity: `${stats.ino}:` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`${file} is not a file; remove it`);
    const text = await handle.readFile('utf8');
    const record = parseRecord(text);
    return { identity: `${stats.ino}:${text}`, ...(record === undefined ? {} : { record }) };
  } finally {
    await handle.close();
  }
}

/**
 * Removes the stale file judged by `identity`, and only it: it is first renamed aside (atomic, so it is this
 * starter's alone), then compared. When it is no longer the judged one (another starter took the stale file
 * away and created its own in between), it is put back where it was. Exported for its test, which plays that
 * interleaving out.
 */
export async function takeAwayStale(file: string, identity: string): Promise<void> {
  const aside = temporaryName(file, 'stale');
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const moved = await readLockFile(aside);
    if (moved !== undefined && moved.identity !== identity) {
      // EEXIST: its owner has rewritten it since (announce), so what is there is newer.
      await link(aside, file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    }
  } finally {
    await rm(aside, { force: true });
  }
}

/** True when `file` was created with exactly `text`; false when it exists already. */
async function createExclusive(file: string, text: string): Promise<boolean> {
  const temporary = await writeTemporary(file, text);
  try {
    await link(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
}

/** `text` in a new 0600 file beside `file`, flushed. */
async function writeTemporary(file: string, text: string): Promise<string> {
  const temporary = temporaryName(file, 'tmp');
  const handle = await open(temporary, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  return temporary;
}

/** Beside `file`, hidden, unique: `.host.json.<hex>.tmp`. */
function temporaryName(file: string, kind: 'tmp' | 'stale'): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.${kind}`);
}
