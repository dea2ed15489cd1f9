import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

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
  if (!/^[A-Za-z0-9_-]{32,}$/.test(token)) {
    throw new Error(`the token file ${path} is not a token; delete it to have a new one made`);
  }
  return { token, created: false };
}
