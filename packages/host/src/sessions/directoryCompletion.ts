import { readdir, realpath } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { type DirectoryCompletion, type DirectoryEntry, hostLimits, type RecentDirectory } from '@outrigger/host-api';
import { isDirectory, isInside, realRoots } from '../files/pathContainment.ts';
import { HostError } from '../hostError.ts';
import type { HostStoreReader } from '../store/hostStore.ts';
import { expandHome, resolveSessionCwd } from './cwdPolicy.ts';

/**
 * Completion of the working directory field (`GET /api/directories?prefix=`). Default-deny: only
 * directories under the completion roots are listed — the `--allow-root` directories, or, on a host
 * started without any, the user's home directory and the default directory. Every decision is made on the
 * resolved real path (the one the file system opens): the typed directory must resolve inside a root, or be
 * one of the directories on the way down to one (then only the steps towards a root are listed); each entry
 * is resolved too, so a symlink that leads out of the roots is neither listed nor followed. Files, and
 * hidden directories unless the typed name starts with `.`, are left out.
 */
export async function completeDirectory(
  prefix: string,
  roots: readonly string[],
  home: string,
): Promise<DirectoryCompletion> {
  // `~/` lists the home directory itself: the trailing slash says "inside", which the expansion must keep.
  const expandedHome = expandHome(prefix, home);
  const expanded = prefix.endsWith('/') && !expandedHome.endsWith('/') ? `${expandedHome}/` : expandedHome;
  if (!isAbsolute(expanded)) {
    throw new HostError('validation_failed', `${prefix} is not an absolute path: start it with / or ~`, [
      { path: 'prefix', message: 'must be an absolute path or start with ~' },
    ]);
  }
  const cut = expanded.lastIndexOf('/') + 1;
  const typedDirectory = expanded.slice(0, cut);
  const typedName = expanded.slice(cut).toLowerCase();
  const allowed = await realRoots(roots);
  let directory: string;
  try {
    directory = await realpath(typedDirectory);
  } catch {
    throw new HostError('not_found', `no such directory: ${typedDirectory}`);
  }
  const where = placeOf(directory, allowed);
  if (where === 'outside') {
    throw new HostError('forbidden', `${typedDirectory} is outside the directories this host may use`);
  }
  const entries: DirectoryEntry[] = [];
  let truncated = false;
  const names = await readdir(directory, { withFileTypes: true }).catch(() => []);
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of names) {
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    if (entry.name.startsWith('.') && !typedName.startsWith('.')) continue;
    if (!entry.name.toLowerCase().startsWith(typedName)) continue;
    // The entry's own real path decides: a link out of the roots (or to a file) is not offered.
    const real = await realpath(join(directory, entry.name)).catch(() => undefined);
    if (real === undefined || placeOf(real, allowed) === 'outside') continue;
    if (!(await isDirectory(real))) continue;
    if (entries.length === hostLimits.directoryEntriesMax) {
      truncated = true;
      break;
    }
    entries.push({ name: entry.name, path: `${typedDirectory}${entry.name}/` });
  }
  return { directory, entries, truncated };
}

/** Inside a root, on the way down to one (an ancestor of it), or outside all of them. */
function placeOf(path: string, roots: readonly string[]): 'inside' | 'above' | 'outside' {
  if (roots.some((root) => isInside(path, root))) return 'inside';
  if (roots.some((root) => isInside(root, path))) return 'above';
  return 'outside';
}

/**
 * The directories past sessions ran in, the most recently used first: those that still exist and that a
 * new session may use (the same check as `POST /api/sessions`). Worktree sessions' directories are left out
 * (they are the host's, under its data directory).
 */
export async function recentDirectories(
  store: Pick<HostStoreReader, 'recentCwds'>,
  allowRoots: readonly string[],
): Promise<RecentDirectory[]> {
  const max = hostLimits.recentDirectoriesMax;
  const directories: RecentDirectory[] = [];
  for (const { cwd, lastUsedAt } of await store.recentCwds(max * 4)) {
    const usable = await resolveSessionCwd(cwd, allowRoots).then(
      () => true,
      () => false,
    );
    if (usable) directories.push({ path: cwd, lastUsedAt });
    if (directories.length === max) break;
  }
  return directories;
}
