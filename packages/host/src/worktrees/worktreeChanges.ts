import { FILE_CHANGES_ARGS, type FileChange, parseFileChanges } from '../git/fileChanges.ts';
import { runGit } from '../git/runGit.ts';
import { assertValidCheckout } from './gitNames.ts';
import { gitText } from './repositoryReads.ts';
import { workTreeSnapshot } from './workTreeSnapshot.ts';
import type { WorktreeCheckout } from './worktreeCheckout.ts';

export interface WorktreeChanges {
  /** The worktree as it is now (its branch's commits and its uncommitted files) against `baseCommit`. */
  readonly files: FileChange[];
  /** Commits on the worktree's HEAD that `baseCommit` does not have. */
  readonly commitsAhead: number;
  /** Some files differ from the worktree's HEAD commit (untracked ones included). */
  readonly uncommitted: boolean;
}

/** What the session changed in its worktree, read without touching the worktree's index. */
export async function worktreeChanges(checkout: WorktreeCheckout): Promise<WorktreeChanges> {
  assertValidCheckout(checkout);
  const cwd = checkout.path;
  const tree = await workTreeSnapshot(cwd);
  const headTree = await gitText(['rev-parse', '--verify', 'HEAD^{tree}'], { cwd });
  const files = parseFileChanges(await runGit([...FILE_CHANGES_ARGS, checkout.baseCommit, tree], { cwd }));
  const ahead = await gitText(['rev-list', '--count', `${checkout.baseCommit}..HEAD`], { cwd });
  return { files, commitsAhead: Number(ahead), uncommitted: tree !== headTree };
}
