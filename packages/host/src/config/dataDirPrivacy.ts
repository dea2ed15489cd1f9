import { chmod, lstat, mkdir, open, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Owner only: the data directory holds every prompt and answer (the database, Claude Code's demo transcripts). */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export interface DataDirPrivacy {
  /** The data directory itself was readable by others and has been narrowed to 0700. */
  readonly dirWasOpen: boolean;
  /** Every path (the data directory included) whose mode was narrowed. */
  readonly narrowed: readonly string[];
}

/**
 * Makes `dir` (and any missing parent) with 0700 and narrows an existing one. `mkdir`'s mode only applies
 * to directories it creates, under the umask, so a directory someone else made first (the demo model
 * backend did, with 0755) keeps its mode unless it is changed explicitly.
 */
export async function ensurePrivateDir(dir: string): Promise<boolean> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const { mode } = await lstat(dir);
  if ((mode & 0o777) === PRIVATE_DIR_MODE) return false;
  await chmod(dir, PRIVATE_DIR_MODE);
  return true;
}

/**
 * Narrows the data directory and everything the host keeps in it: directories to 0700, files to their owner
 * bits only (0644 → 0600; an executable stays executable for its owner). The 0700 directory alone already
 * keeps other users out, but a file that is 0644 inside it becomes readable the day someone widens the
 * directory or copies it with its modes (`cp -a`, a backup), so both are narrowed.
 *
 * `skip` are directories whose contents are the user's (the default session workspace): their own modes are
 * the user's business and are left alone. Symbolic links are never followed: chmod would change their target.
 */
export async function narrowDataDir(dataDir: string, skip: readonly string[] = []): Promise<DataDirPrivacy> {
  const dirWasOpen = await ensurePrivateDir(dataDir);
  const narrowed: string[] = dirWasOpen ? [dataDir] : [];
  const skipped = new Set(skip.map((path) => resolve(path)));
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (await narrow(path, 'dir')) narrowed.push(path);
        if (!skipped.has(resolve(path))) await walk(path);
      } else if (entry.isFile()) {
        if (await narrow(path, 'file')) narrowed.push(path);
      }
    }
  };
  await walk(dataDir);
  return { dirWasOpen, narrowed };
}

/** Drops group and other bits (and, for directories, makes sure the owner can still enter them). */
async function narrow(path: string, kind: 'dir' | 'file'): Promise<boolean> {
  let mode: number;
  try {
    mode = (await lstat(path)).mode & 0o777;
  } catch (error) {
    // Gone since readdir (a rotated log, SQLite's -shm): nothing left to narrow.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const wanted = kind === 'dir' ? PRIVATE_DIR_MODE : (mode & 0o700) | PRIVATE_FILE_MODE;
  if (mode === wanted) return false;
  await chmod(path, wanted);
  return true;
}

/**
 * Creates the database file 0600 before SQLite opens it, and narrows it (and a `-wal`/`-shm` a previous run
 * left) when it exists. SQLite's unix VFS gives the `-wal` and `-shm` files it creates later the database
 * file's own mode, whatever the umask, so a 0600 `host.db` keeps them 0600 too.
 */
export async function preparePrivateDatabase(path: string): Promise<void> {
  const handle = await open(path, 'a', PRIVATE_FILE_MODE);
  await handle.close();
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) await narrow(file, 'file');
}
