import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';

/*
 * Whether a path is inside a directory, decided the way the file system will open it: callers pass resolved
 * real paths (`realpath`), so a symlink or a `..` cannot carry a path out of a root that looks inside it.
 */

/** `path` is `root` or below it (both resolved). A sibling with the same prefix (`/a/bc` for `/a/b`) is not. */
export function isInside(path: string, root: string): boolean {
  const rest = relative(root, path);
  return rest === '' || (!rest.startsWith(`..${sep}`) && rest !== '..' && !isAbsolute(rest));
}

/** The roots that exist, symlinks resolved (a root that is missing allows nothing). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)));
  return resolved.filter((root): root is string => root !== undefined);
}

/** The path names a directory (following links); false for anything else, or nothing. */
export function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
