import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { HostError } from '../hostError.ts';

/**
 * Where a session may run: an existing directory, given as an absolute path, and, when the host was
 * started with `--allow-root` directories, inside one of them once symlinks are resolved (a link
 * pointing out of a root is outside it). Returns the resolved directory.
 */
export async function resolveSessionCwd(cwd: string, allowRoots: readonly string[]): Promise<string> {
  if (!isAbsolute(cwd)) {
    throw new HostError('validation_failed', 'cwd must be an absolute path', [
      { path: 'cwd', message: 'must be an absolute path' },
    ]);
  }
  let resolved: string;
  try {
    resolved = await realpath(cwd);
    if (!(await stat(resolved)).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new HostError('validation_failed', 'cwd must be an existing directory', [
      { path: 'cwd', message: 'must be an existing directory' },
    ]);
  }
  if (allowRoots.length === 0) return resolved;
  for (const root of allowRoots) {
    const realRoot = await realpath(root).catch(() => undefined);
    if (realRoot !== undefined && isInside(resolved, realRoot)) return resolved;
  }
  throw new HostError('forbidden', 'cwd is outside the directories this host may use');
}

function isInside(path: string, root: string): boolean {
  const rest = relative(root, path);
  return rest === '' || (!rest.startsWith(`..${sep}`) && rest !== '..' && !isAbsolute(rest));
}
