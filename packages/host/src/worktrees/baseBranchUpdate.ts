import { runGit } from '../git/runGit.ts';
import { changedPaths, nulFields } from './repositoryReads.ts';
import { workTreeOfBranch } from './worktreeList.ts';
import { WorktreeMergeRefused } from './worktreeMergeRefused.ts';

/** A status record names a path after its two status letters; a rename's or copy's next record is its old path. */
const STATUS_PATH_OFFSET = 3;
const LISTED_DIRTY_PATHS = 5;

/**
 * Moves `branch` from `from` to `to`, a descendant of it. Where the branch is checked out, its work tree
 * follows through a fast-forward (`to` is either the session's commit or a merge commit whose first parent
 * is `from`), refused before anything changes when the work tree has uncommitted changes to a path the
 * merge changes; elsewhere only the ref moves, and only if it still is at `from`.
 */
export async function moveBaseBranch(repoRoot: string, branch: string, from: string, to: string): Promise<void> {
  const workTree = await workTreeOfBranch(repoRoot, branch);
  if (workTree === undefined) {
    await runGit(['update-ref', '-m', 'outrigger: merge a session', `refs/heads/${branch}`, to, from], {
      cwd: repoRoot,
    });
    return;
  }
  const changed = new Set(await changedPaths(repoRoot, from, to));
  const inTheWay = (await uncommittedPaths(workTree.path)).filter((path) => changed.has(path));
  if (inTheWay.length > 0) {
    throw new WorktreeMergeRefused(
      `${branch} is checked out in ${workTree.path} with uncommitted changes to ${describe(inTheWay)}, ` +
        'which the merge changes: commit or stash them first',
    );
  }
  await runGit(['merge', '--quiet', '--ff-only', to], { cwd: workTree.path });
}

/** Every path with staged, unstaged or untracked changes in the work tree at `cwd`. */
async function uncommittedPaths(cwd: string): Promise<string[]> {
  const output = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd });
  const records = nulFields(output.stdout);
  const paths: string[] = [];
  for (let at = 0; at < records.length; at++) {
    const record = records[at]!;
    paths.push(record.slice(STATUS_PATH_OFFSET));
    if (/^[RC]|^.[RC]/.test(record)) paths.push(records[++at]!);
  }
  return paths;
}

function describe(paths: readonly string[]): string {
  const named = paths.slice(0, LISTED_DIRTY_PATHS).join(', ');
  return paths.length > LISTED_DIRTY_PATHS ? `${named} and ${paths.length - LISTED_DIRTY_PATHS} more` : named;
}
