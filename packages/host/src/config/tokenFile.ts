import { randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,}$/;

/**
 * The bearer token: made at the first start (32 random bytes, base64url) into a file only the owner can
 * read, and read back at every later start so that a bookmarked URL keeps working. A file someone widened
 * is narrowed again to 0600; an empty or malformed one is an error, never silently replaced (that would
 * lock out every open tab without saying why).
 */
export async function loadOrCreateToken(path: string): Promise<{ token: string; created: boolean }> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    const handle = await open(path, 'wx', 0o600);
    const token = randomBytes(32).toString('base64url');
    try {
      await handle.writeFile(`${token}\n`);
    } finally {
      await handle.close();
    }
    return { token, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  const token = (await readFile(path, 'utf8')).trim();
  if (!TOKEN_PATTERN.test(token)) {
    throw new Error(`the token file ${path} is not a token; delete it to have a new one made`);
  }
  return { token, created: false };
}

/**
 * Replaces the token (`outrigger token rotate`): the new one goes to a temporary 0600 file beside the token
 * file, is flushed, then renamed over it. A rename is atomic, so a host watching the file only ever reads the
 * old token or the whole new one, never a half-written file; and the token is never in a file others can read.
 */
export async function rotateToken(path: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${token}\n`);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return token;
}

export interface TokenWatch {
  /** The token as of the last complete read of the file. */
  current(): string;
  close(): void;
}

/**
 * Follows the token file so that a rotation takes effect in a running host: the directory is watched (a
 * rename replaces the file, so a watch on the file itself would stay on the old inode) and the file is read
 * again after each change. A file that is missing for a moment or holds no valid token leaves the current
 * token in place (`onInvalid` is told): the host never falls back to an empty or partial token.
 */
export function watchToken(
  path: string,
  initial: string,
  handlers: { onChange?: (token: string) => void; onInvalid?: (reason: string) => void } = {},
): TokenWatch {
  let token = initial;
  let reads = 0;
  let closed = false;
  const reload = async () => {
    const read = ++reads;
    let text: string;
    try {
      text = (await readFile(path, 'utf8')).trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') handlers.onInvalid?.(String(error));
      return;
    }
    // A later read started meanwhile: its result is newer than this one.
    if (closed || read !== reads || text === token) return;
    if (!TOKEN_PATTERN.test(text)) {
      handlers.onInvalid?.('the token file holds no valid token');
      return;
    }
    token = text;
    handlers.onChange?.(text);
  };
  const name = basename(path);
  const watcher = watch(dirname(path), { persistent: false }, (_event, changed) => {
    if (changed === null || changed === name) void reload();
  });
  // A watch can fail later (the directory removed): the last token stays in force, the host goes on.
  watcher.on('error', (error) => handlers.onInvalid?.(String(error)));
  return {
    current: () => token,
    close: () => {
      closed = true;
      watcher.close();
    },
  };
}
