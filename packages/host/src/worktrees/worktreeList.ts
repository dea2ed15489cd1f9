import { runGit } from '../git/runGit.ts';
import { nulFields } from './repositoryReads.ts';

/** One work tree of a repository as `git worktree list` names it. */
export interface ListedWorkTree {
  /** Absolute, with symbolic links resolved (git records the real path). */
  readonly path: string;
  /** The full ref checked out (`refs/heads/main`); null when detached or bare. */
  readonly branch: string | null;
}

/** Every work tree of the repository `cwd` belongs to: the main one first, then the linked ones. */
export async function listWorkTrees(cwd: string): Promise<ListedWorkTree[]> {
  const output = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd });
  // Each record is `worktree <path>` then its attributes (`HEAD <sha>`, `branch <ref>`, `detached`, …).
  const workTrees: { path: string; branch: string | null }[] = [];
  for (const field of nulFields(output.stdout)) {
    if (field.startsWith('worktree ')) workTrees.push({ path: field.slice('worktree '.length), branch: null });
    const current = workTrees.at(-1);
    if (current !== undefined && field.startsWith('branch ')) current.branch = field.slice('branch '.length);
  }
  return workTrees;
}

/** The work tree `branch` (short name) is checked out in, if any. */
export async function workTreeOfBranch(cwd: string, branch: string): Promise<ListedWorkTree | undefined> {
  return (await listWorkTrees(cwd)).find((workTree) => workTree.branch === `refs/heads/${branch}`);
}
