import { runGit } from '../git/runGit.ts';
import { assertValidCheckout } from './gitNames.ts';
import { commitOf } from './repositoryReads.ts';
import type { WorktreeCheckout } from './worktreeCheckout.ts';
import { listWorkTrees } from './worktreeList.ts';

export interface RemoveWorktreeOptions {
  /** Discard the session's branch too; otherwise it stays for the user to merge or look at later. */
  readonly deleteBranch: boolean;
}

/**
 * Removes the worktree, its uncommitted files included (the host asks the user first), and with
 * `deleteBranch` its branch. Removing what is already gone is not an error: a retry after a crash, or a
 * worktree directory the user deleted by hand, ends in the same state.
 */
export async function removeWorktree(checkout: WorktreeCheckout, options: RemoveWorktreeOptions): Promise<void> {
  assertValidCheckout(checkout);
  const cwd = checkout.repoRoot;
  // Only a worktree git knows of is removed: a directory that merely sits at the path is not ours to delete.
  const registered = (await listWorkTrees(cwd)).some((workTree) => workTree.path === checkout.path);
  if (registered) await runGit(['worktree', 'remove', '--force', '--', checkout.path], { cwd });
  await runGit(['worktree', 'prune'], { cwd });
  if (options.deleteBranch && (await commitOf(cwd, `refs/heads/${checkout.branch}`)) !== undefined) {
    await runGit(['branch', '-D', '--', checkout.branch], { cwd });
  }
}
