import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { isDirectory, isInside, realRoots } from '../files/pathContainment.ts';
import { HostError } from '../hostError.ts';

/** The field's name as the person sees it, in every message about it. */
const LABEL = 'Working directory';

/**
 * `~` and `~/…` name the home directory of the user the host runs as (as a shell would); `~other` is not
 * expanded (and then is no absolute path). The API takes `~` too: a client need not know the host's home.
 */
export function expandHome(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return path;
}

/**
 * Where a session may run: an existing directory, given as an absolute path (or from `~`), and, when the
 * host was started with `--allow-root` directories, inside one of them once symlinks are resolved (a link
 * pointing out of a root is outside it). Returns the resolved directory. Each refusal names the field by its
 * label and repeats the path, so the person sees which one was wrong.
 */
export async function resolveSessionCwd(
  cwd: string,
  allowRoots: readonly string[],
  home: string = homedir(),
): Promise<string> {
  const expanded = expandHome(cwd, home);
  if (!isAbsolute(expanded)) {
    throw cwdInvalid(`${cwd} is not an absolute path: start it with / or ~`);
  }
  let resolved: string;
  try {
    resolved = await realpath(expanded);
  } catch {
    throw cwdInvalid(`${expanded} does not exist`);
  }
  if (!(await isDirectory(resolved))) {
    throw cwdInvalid(`${expanded} is not a directory`);
  }
  if (allowRoots.length === 0) return resolved;
  for (const root of await realRoots(allowRoots)) if (isInside(resolved, root)) return resolved;
  throw new HostError(
    'forbidden',
    `${LABEL}: ${expanded} is outside the directories this host may use (${allowRoots.join(', ')})`,
    [{ path: 'cwd', message: `${expanded} is outside the allowed directories` }],
  );
}

function cwdInvalid(message: string): HostError {
  return new HostError('validation_failed', `${LABEL}: ${message}`, [{ path: 'cwd', message }]);
}
