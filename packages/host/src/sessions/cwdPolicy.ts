import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
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
  if (
    !(await stat(resolved).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
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

/** The roots that exist, symlinks resolved (a root that is missing allows nothing). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)));
  return resolved.filter((root): root is string => root !== undefined);
}

/** `path` is `root` or below it (both resolved). A sibling with the same prefix (`/a/bc` for `/a/b`) is not. */
export function isInside(path: string, root: string): boolean {
  const rest = relative(root, path);
  return rest === '' || (!rest.startsWith(`..${sep}`) && rest !== '..' && !isAbsolute(rest));
}

function cwdInvalid(message: string): HostError {
  return new HostError('validation_failed', `${LABEL}: ${message}`, [{ path: 'cwd', message }]);
}
