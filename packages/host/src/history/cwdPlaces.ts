import { realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { isDirectory, isInside, realRoots } from '../files/pathContainment.ts';

/** Where a transcript's recorded directory is, for the list and the reads. */
export interface CwdPlace {
  /** Under one of the host's allowed roots (any directory when it has none). */
  readonly inside: boolean;
  readonly exists: boolean;
}

/**
 * Decides each directory the way the file system resolves it (`realpath`, so a symlink out of a root is outside
 * it), as `resolveSessionCwd` decides a new session's. A directory that no longer exists is decided on its path
 * as recorded, against the roots both as given and resolved; a path that is not absolute is never inside.
 */
export async function cwdPlaces(cwds: Iterable<string>, allowRoots: readonly string[]): Promise<Map<string, CwdPlace>> {
  const roots =
    allowRoots.length === 0
      ? undefined
      : [...new Set([...(await realRoots(allowRoots)), ...allowRoots.map((root) => resolve(root))])];
  const distinct = [...new Set(cwds)];
  const places = await Promise.all(
    distinct.map(async (cwd): Promise<CwdPlace> => {
      if (!isAbsolute(cwd)) return { inside: false, exists: false };
      const real = await realpath(cwd).catch(() => undefined);
      const exists = real !== undefined && (await isDirectory(real));
      if (roots === undefined) return { inside: true, exists };
      const decided = real ?? resolve(cwd);
      return { inside: roots.some((root) => isInside(decided, root)), exists };
    }),
  );
  return new Map(distinct.map((cwd, index) => [cwd, places[index]!]));
}
