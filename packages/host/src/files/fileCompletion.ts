import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileCompletion, FileCompletionEntry } from '@outrigger/host-api';
import { GitError, runGit } from '../git/runGit.ts';
import { HostError } from '../hostError.ts';
import { GitignoreRules } from './gitignoreRules.ts';
import { isInside } from './pathContainment.ts';

export interface FileCompletionOptions {
  /** Entries offered at most. */
  readonly limit: number;
  /** Entries a walk looks at before it stops (`truncated`). */
  readonly walkBound?: number;
  /** How deep a walk goes below the directory. */
  readonly walkDepth?: number;
  readonly gitTimeoutMs?: number;
}

const DEFAULT_WALK_BOUND = 20_000;
const DEFAULT_WALK_DEPTH = 16;
const DEFAULT_GIT_TIMEOUT_MS = 5_000;

/**
 * The files (and their directories) under `cwd` that `@<prefix>` completes to. The candidates are listed from
 * inside the directory only: in a git repository git's own view (tracked and untracked, `.gitignore` and the
 * other standard excludes honoured), otherwise a bounded walk honouring `.gitignore` files. The prefix is only
 * a filter over those names, never a path that is opened. Every entry offered is decided on its resolved real
 * path: one that resolves outside the directory (a symlink out) is left out, and the walk never follows a link.
 */
export async function completeFiles(
  cwd: string,
  prefix: string,
  options: FileCompletionOptions,
): Promise<FileCompletion> {
  const root = await realpath(cwd).catch(() => {
    throw new HostError('not_found', 'the session’s directory no longer exists');
  });
  const listed = await gitFiles(root, options.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT_MS);
  const source = listed === undefined ? 'walk' : 'git';
  const candidates =
    listed === undefined
      ? await walk(root, options.walkBound ?? DEFAULT_WALK_BOUND, options.walkDepth ?? DEFAULT_WALK_DEPTH)
      : { paths: listed, bounded: false };
  const ranked = rank(withDirectories(candidates.paths), normalizeQuery(prefix));
  const entries: FileCompletionEntry[] = [];
  let index = 0;
  for (; index < ranked.length && entries.length < options.limit; index++) {
    const entry = ranked[index] as FileCompletionEntry;
    if (await staysInside(root, entry.path)) entries.push(entry);
  }
  return { entries, truncated: candidates.bounded || index < ranked.length, source };
}

/** `./src/a` and `src/a` are the same query; the match is case-insensitive. */
function normalizeQuery(prefix: string): string {
  return prefix.replace(/^(?:\.\/)+/, '').toLowerCase();
}

/**
 * Git's list of the directory's files, relative to it; undefined when it is no repository (or git is missing),
 * or when the repository ignores the directory itself (a session in a checkout's ignored `.data/workspace`):
 * git would list nothing there, so the walk decides by the directory's own `.gitignore` files.
 */
async function gitFiles(root: string, timeoutMs: number): Promise<string[] | undefined> {
  try {
    const ignored = await runGit(['check-ignore', '-q', '.'], { cwd: root, timeoutMs, okExitCodes: [1] });
    if (ignored.exitCode === 0) return undefined;
    const { stdout } = await runGit(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      timeoutMs,
    });
    const paths = stdout.toString('utf8').split('\0');
    return [...new Set(paths.filter((path) => path !== ''))];
  } catch (error) {
    if (error instanceof GitError) return undefined;
    throw error;
  }
}

/** Breadth first, never through a link, stopping after `bound` entries or below `depth`. */
async function walk(root: string, bound: number, depth: number): Promise<{ paths: string[]; bounded: boolean }> {
  const paths: string[] = [];
  let seen = 0;
  let queue: { relative: string; rules: GitignoreRules; level: number }[] = [
    { relative: '', rules: GitignoreRules.none, level: 0 },
  ];
  while (queue.length > 0) {
    const next: typeof queue = [];
    for (const directory of queue) {
      const absolute = directory.relative === '' ? root : join(root, directory.relative);
      const ignoreText = await readFile(join(absolute, '.gitignore'), 'utf8').catch(() => '');
      const rules = directory.rules.with(directory.relative, ignoreText);
      const items = await readdir(absolute, { withFileTypes: true }).catch(() => []);
      items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const item of items) {
        if (++seen > bound) return { paths, bounded: true };
        if (item.name === '.git') continue;
        const relative = directory.relative === '' ? item.name : `${directory.relative}/${item.name}`;
        if (item.isDirectory()) {
          if (rules.ignores(relative, true)) continue;
          if (directory.level + 1 < depth) next.push({ relative, rules, level: directory.level + 1 });
        } else if ((item.isFile() || item.isSymbolicLink()) && !rules.ignores(relative, false)) {
          paths.push(relative);
        }
      }
    }
    queue = next;
  }
  return { paths, bounded: false };
}

/** The files, and each directory that holds one (ending in `/`), so `@src/` completes too. */
function withDirectories(paths: readonly string[]): FileCompletionEntry[] {
  const directories = new Set<string>();
  for (const path of paths) {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      directories.add(`${path.slice(0, slash)}/`);
    }
  }
  return [
    ...[...directories].map((path) => ({ path, kind: 'directory' as const })),
    ...paths.map((path) => ({ path, kind: 'file' as const })),
  ];
}

/** Names starting with the query first, then paths starting with it, then any path holding it; shorter first. */
function rank(entries: readonly FileCompletionEntry[], query: string): FileCompletionEntry[] {
  const scored: { entry: FileCompletionEntry; score: number }[] = [];
  for (const entry of entries) {
    const path = entry.path.toLowerCase();
    if (query === '') {
      // Nothing typed: the directory's top level first.
      const depth = entry.path.replace(/\/$/, '').split('/').length;
      scored.push({ entry, score: depth * 2 + (entry.kind === 'directory' ? 0 : 1) });
      continue;
    }
    const trimmed = path.replace(/\/$/, '');
    const name = trimmed.slice(trimmed.lastIndexOf('/') + 1);
    const score = name.startsWith(query) ? 0 : path.startsWith(query) ? 1 : path.includes(query) ? 2 : -1;
    if (score !== -1) scored.push({ entry, score });
  }
  scored.sort(
    (a, b) =>
      a.score - b.score ||
      a.entry.path.length - b.entry.path.length ||
      (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : 0),
  );
  return scored.map((item) => item.entry);
}

/** The entry's resolved real path is the directory or inside it (a symlink out, or a dangling one, is not). */
async function staysInside(root: string, relative: string): Promise<boolean> {
  const absolute = join(root, relative);
  if (!isInside(absolute, root)) return false;
  try {
    await lstat(absolute);
    return isInside(await realpath(absolute), root);
  } catch {
    return false;
  }
}
