import { constants, type Stats } from 'node:fs';
import { access, lstat, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type CheckResult, fail, ok } from './checkResult.ts';

/** Below this the database, logs and transcripts soon stop being written. */
export const MIN_FREE_BYTES = 100 * 1024 * 1024;

export interface DataDirInputs {
  readonly dir: string;
  readonly platform?: NodeJS.Platform;
  /** Bytes an unprivileged user may still write on the file system holding `path`. */
  readonly freeBytes?: (path: string) => Promise<number>;
  readonly minFreeBytes?: number;
}

/**
 * The data directory's lines: it exists, it is owner-only, a file can be written in it, and its file system
 * has room. A missing one gets two: whether it can be made (the host makes it, the doctor does not) and the
 * room where it would be. The host keeps its access
 * token and every transcript there, hence 0700.
 */
export async function checkDataDir(inputs: DataDirInputs): Promise<CheckResult[]> {
  const { dir } = inputs;
  const platform = inputs.platform ?? process.platform;
  let found: Stats | undefined;
  try {
    found = await statOrMissing(dir);
  } catch (error) {
    return [fail('data dir', `cannot look at ${dir}: ${(error as NodeJS.ErrnoException).code ?? error}`)];
  }
  if (found !== undefined && !found.isDirectory()) {
    return [fail('data dir', `${dir} is not a directory`)];
  }
  const existing = found === undefined ? await nearestExisting(dir) : dir;
  const results: CheckResult[] = [];
  if (found === undefined) {
    const creatable = await isWritableDir(existing);
    results.push(
      creatable
        ? ok('data dir', `${dir} does not exist yet; outrigger serve creates it (0700)`)
        : fail('data dir', `${dir} does not exist and cannot be created: ${existing} is not writable`),
    );
  } else {
    results.push(ok('data dir', dir));
    results.push(checkMode(dir, found, platform));
    results.push(await checkWritable(dir));
  }
  results.push(
    await checkFreeSpace(existing, inputs.freeBytes ?? statfsFreeBytes, inputs.minFreeBytes ?? MIN_FREE_BYTES),
  );
  return results;
}

function checkMode(dir: string, found: Stats, platform: NodeJS.Platform): CheckResult {
  // Windows reports made-up POSIX bits; its ACLs are another matter.
  if (platform === 'win32') return ok('data mode', 'not checked on Windows');
  const mode = (found.mode & 0o777).toString(8).padStart(4, '0');
  if ((found.mode & 0o077) === 0) return ok('data mode', `${mode}, owner only`);
  return fail(
    'data mode',
    `${mode}: other users can reach the token and transcripts; chmod 700 ${dir} (outrigger serve also narrows it when it starts)`,
  );
}

/** The only sure test: write a file and take it away again (`access` is fooled by ACLs, read-only mounts, quotas). */
async function checkWritable(dir: string): Promise<CheckResult> {
  const probe = join(dir, `.doctor-${process.pid}-${Date.now()}`);
  try {
    await writeFile(probe, '', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    return fail('data write', `cannot create a file in ${dir}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  await rm(probe, { force: true });
  return ok('data write', 'a file can be created and removed');
}

async function checkFreeSpace(
  path: string,
  freeBytes: (path: string) => Promise<number>,
  minimum: number,
): Promise<CheckResult> {
  let free: number;
  try {
    free = await freeBytes(path);
  } catch (error) {
    return fail(
      'free space',
      `cannot tell the free space at ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  const text = `${formatBytes(free)} free at ${path}`;
  return free >= minimum
    ? ok('free space', text)
    : fail('free space', `${text}, below the ${formatBytes(minimum)} needed`);
}

async function statfsFreeBytes(path: string): Promise<number> {
  const stats = await statfs(path);
  return stats.bavail * stats.bsize;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

async function statOrMissing(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The closest ancestor that exists: where `mkdir -p` would start. */
async function nearestExisting(path: string): Promise<string> {
  let current = path;
  for (;;) {
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
    try {
      await lstat(current);
      return current;
    } catch {
      // Missing too: go up.
    }
  }
}

async function isWritableDir(path: string): Promise<boolean> {
  try {
    await access(path, constants.W_OK | constants.X_OK);
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
