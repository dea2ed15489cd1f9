/*
 * What a caller may hand the shadow repository. Every commit, ref and path ends up as an argument of git;
 * checked here, none can be read as an option (`--upload-pack=…`), a revision expression (`HEAD~1`,
 * `@{-1}`) or a path outside the work tree.
 */

/** The namespace of the refs callers name; the repository's own bookkeeping lives outside it. */
export const CHECKPOINT_REF_ROOT = 'refs/outrigger/';

/** The directory as it is now, where a recorded checkpoint could be named instead. */
export const WORKING = 'working';

const COMMIT_ID = /^[0-9a-f]{40}$/;
/** Glob characters would make `for-each-ref` match by pattern; whitespace and NUL are never in a ref. */
const NOT_IN_A_PREFIX = /[*?[\\\s\0]/;
const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]/;

/** A checkpoint's commit: 40 lowercase hex digits, nothing git would resolve. */
export function checkedCommit(commit: string): string {
  if (typeof commit !== 'string' || !COMMIT_ID.test(commit)) {
    throw new RangeError(`a checkpoint is named by its commit (40 lowercase hex digits), not ${shown(commit)}`);
  }
  return commit;
}

/** A checkpoint's commit, or `working`. */
export function checkedState(state: string): string {
  return state === WORKING ? state : checkedCommit(state);
}

/** The part of a ref's check that needs no git: its namespace. `git check-ref-format` does the rest. */
export function checkedRefNamespace(ref: string): string {
  if (typeof ref !== 'string' || !ref.startsWith(CHECKPOINT_REF_ROOT) || ref.length === CHECKPOINT_REF_ROOT.length) {
    throw new RangeError(`a checkpoint ref is a name under ${CHECKPOINT_REF_ROOT}, not ${shown(ref)}`);
  }
  return ref;
}

/** A prefix of checkpoint refs to list, matched literally. */
export function checkedRefPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || !prefix.startsWith(CHECKPOINT_REF_ROOT) || NOT_IN_A_PREFIX.test(prefix)) {
    throw new RangeError(
      `a checkpoint ref prefix starts with ${CHECKPOINT_REF_ROOT} and has no glob, not ${shown(prefix)}`,
    );
  }
  return prefix;
}

/** A path relative to the work tree's root, as git names it: `/`-separated, no `.`, `..` or empty segment, never in `.git`. */
export function checkedPath(path: string): string {
  if (typeof path !== 'string' || path === '') throw new TypeError('a path is a non-empty string');
  if (path.includes('\0')) throw new RangeError('a path has no NUL character');
  if (path.startsWith('/') || WINDOWS_ABSOLUTE.test(path)) {
    throw new RangeError(`${shown(path)} is absolute; a path is relative to the work tree`);
  }
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new RangeError(`${shown(path)} is not a plain path inside the work tree (no '.', '..' or empty segments)`);
  }
  if (segments.some((segment) => segment.toLowerCase() === '.git')) {
    throw new RangeError(`${shown(path)} is inside a .git directory, which checkpoints never hold`);
  }
  return path;
}

export function checkedHunkIndex(index: number): number {
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new RangeError(`a hunk index is a whole number from 0, not ${shown(index)}`);
  }
  return index;
}

/** A caller's value in an error message: quoted, and short. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
