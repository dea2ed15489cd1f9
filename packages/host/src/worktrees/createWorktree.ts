import { lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ensurePrivateDir } from '../config/dataDirPrivacy.ts';
import { GitError, runGit } from '../git/runGit.ts';
import { sessionSlug } from './gitNames.ts';
import { branchOfHead, commitOf, gitText } from './repositoryReads.ts';
import type { WorktreeCheckout } from './worktreeCheckout.ts';

export interface CreateWorktreeOptions {
  /** The directory the user chose for the session, anywhere inside a repository's work tree. */
  readonly dir: string;
  /** Where worktrees are made (the host's `DATA/worktrees`); created 0700 when missing. */
  readonly worktreesDir: string;
  /** A session title or id; reduced to `[a-z0-9-]` for the branch and directory names. */
  readonly slug: string;
}

const BRANCH_PREFIX = 'outrigger/';
/** `-2` … `-100`: past that, something other than a name clash is wrong. */
const MAX_NAME_ATTEMPTS = 100;

/** The top of the work tree `dir` is in; undefined when `dir` is in no git repository. */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
  // A missing directory would fail to spawn git, which reads as "git is not installed".
  if (!(await isDirectory(dir))) throw new Error(`${dir} is not a directory`);
  try {
    return await gitText(['rev-parse', '--show-toplevel'], { cwd: dir });
  } catch (error) {
    if (error instanceof GitError && error.kind === 'not_a_repository') return undefined;
    throw error;
  }
}

/**
 * A new worktree on a new branch `outrigger/<slug>` from the repository's current HEAD, in
 * `<worktreesDir>/<slug>` (`-2`, `-3`, … when the branch or the directory exists already).
 */
export async function createWorktree(options: CreateWorktreeOptions): Promise<WorktreeCheckout> {
  const repoRoot = await repositoryRoot(options.dir);
  if (repoRoot === undefined) throw new Error(`${options.dir} is not in a git repository`);
  const baseCommit = await commitOf(repoRoot, 'HEAD');
  if (baseCommit === undefined) {
    throw new Error(`the repository at ${repoRoot} has no commit yet, and a worktree starts from one`);
  }
  const baseBranch = await branchOfHead(repoRoot);
  const subdirectory = await gitText(['rev-parse', '--show-prefix'], { cwd: options.dir });
  await ensurePrivateDir(options.worktreesDir);
  // git records a worktree's real path; the same spelling here lets later calls find it in `git worktree list`.
  const parent = await realpath(options.worktreesDir);
  const { branch, path } = await addWorktreeUnderFreeName(repoRoot, parent, sessionSlug(options.slug), baseCommit);
  const sessionCwd = resolve(path, subdirectory);
  // A subdirectory without tracked files is not in the worktree, but the session still starts there.
  await mkdir(sessionCwd, { recursive: true });
  return { repoRoot, path, branch, baseBranch, baseCommit, sessionCwd };
}

async function addWorktreeUnderFreeName(
  repoRoot: string,
  parent: string,
  slug: string,
  baseCommit: string,
): Promise<{ branch: string; path: string }> {
  for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
    const name = attempt === 1 ? slug : `${slug}-${attempt}`;
    const branch = `${BRANCH_PREFIX}${name}`;
    const path = join(parent, name);
    if ((await commitOf(repoRoot, `refs/heads/${branch}`)) !== undefined || (await exists(path))) continue;
    await runGit(['worktree', 'add', '--quiet', '-b', branch, '--', path, baseCommit], { cwd: repoRoot });
    return { branch, path };
  }
  throw new Error(`every worktree name from ${slug} to ${slug}-${MAX_NAME_ATTEMPTS} is taken`);
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
