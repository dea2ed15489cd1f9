import { runGit } from '../git/runGit.ts';
import { moveBaseBranch } from './baseBranchUpdate.ts';
import { type CommitIdentity, mergeCommitIdentity, OUTRIGGER_IDENTITY } from './commitIdentity.ts';
import { assertValidCheckout } from './gitNames.ts';
import { branchOfHead, commitOf, gitText, isAncestor, nulFields } from './repositoryReads.ts';
import { workTreeSnapshot } from './workTreeSnapshot.ts';
import type { WorktreeCheckout } from './worktreeCheckout.ts';
import { WorktreeMergeRefused } from './worktreeMergeRefused.ts';

export type MergeOutcome =
  | { readonly outcome: 'merged'; readonly commit: string; readonly fastForward: boolean }
  | { readonly outcome: 'conflict'; readonly files: string[] }
  | { readonly outcome: 'nothing_to_merge' };

export interface MergeOptions {
  /** What the session did (its title), for the commit messages. */
  readonly message?: string;
  /** `never`: a merge commit even where the base branch could simply move forward. Default `allow`. */
  readonly fastForward?: 'allow' | 'never';
}

/**
 * Merges the session's work (its branch, and its uncommitted files committed onto it) into the base branch.
 *
 * Nothing is changed until the merge is known to succeed: the uncommitted files become a commit that no ref
 * names yet, `git merge-tree` merges it in the object store alone, and only a clean result moves the base
 * branch and then the session's branch. A conflict or a refusal leaves every ref, index and work tree as it
 * was; all that remains are unreachable objects, which git's garbage collection removes.
 */
export async function mergeWorktree(checkout: WorktreeCheckout, options: MergeOptions = {}): Promise<MergeOutcome> {
  assertValidCheckout(checkout);
  const baseBranch = requireBaseBranch(checkout);
  await requireOwnBranchCheckedOut(checkout);
  const baseTip = await commitOf(checkout.repoRoot, `refs/heads/${baseBranch}`);
  if (baseTip === undefined) throw new WorktreeMergeRefused(`the base branch ${baseBranch} no longer exists`);
  const sessionHead = await gitText(['rev-parse', '--verify', 'HEAD'], { cwd: checkout.path });
  const sessionTip = await commitOfWorkTree(checkout, sessionHead, options.message);
  if (await isAncestor(checkout.repoRoot, sessionTip, baseTip)) return { outcome: 'nothing_to_merge' };
  const merge = await mergeInObjectStore(checkout.repoRoot, baseTip, sessionTip);
  if (merge.conflicted !== undefined) return { outcome: 'conflict', files: merge.conflicted };
  const fastForward = options.fastForward !== 'never' && (await isAncestor(checkout.repoRoot, baseTip, sessionTip));
  const newBaseTip = fastForward
    ? sessionTip
    : await commitTree(checkout.repoRoot, merge.tree, [baseTip, sessionTip], {
        message: mergeMessage(checkout.branch, baseBranch, options.message),
        identity: await mergeCommitIdentity(checkout.repoRoot),
      });
  await moveBaseBranch(checkout.repoRoot, baseBranch, baseTip, newBaseTip);
  if (sessionTip !== sessionHead) await adoptCommit(checkout, sessionHead, sessionTip);
  return { outcome: 'merged', commit: newBaseTip, fastForward };
}

function requireBaseBranch(checkout: WorktreeCheckout): string {
  if (checkout.baseBranch === null) {
    throw new WorktreeMergeRefused('the worktree was made from a detached HEAD: there is no base branch to merge into');
  }
  return checkout.baseBranch;
}

/** What merges is the session's branch plus the worktree's files, which only agree while the branch is checked out. */
async function requireOwnBranchCheckedOut(checkout: WorktreeCheckout): Promise<void> {
  const current = await branchOfHead(checkout.path);
  if (current !== checkout.branch) {
    throw new WorktreeMergeRefused(
      `the worktree at ${checkout.path} is on ${current ?? 'a detached HEAD'}, not on its branch ${checkout.branch}`,
    );
  }
}

/** The worktree's HEAD, or (when files differ from it) a new commit of them on top of it that no ref names yet. */
async function commitOfWorkTree(
  checkout: WorktreeCheckout,
  head: string,
  message: string | undefined,
): Promise<string> {
  const tree = await workTreeSnapshot(checkout.path);
  const headTree = await gitText(['rev-parse', '--verify', `${head}^{tree}`], { cwd: checkout.path });
  if (tree === headTree) return head;
  return commitTree(checkout.path, tree, [head], {
    message: `Outrigger session: ${oneLine(message ?? '') || checkout.branch}`,
    identity: OUTRIGGER_IDENTITY,
  });
}

/** The merge of `theirs` into `ours` as a tree, or the files that conflict; no work tree or index is used. */
async function mergeInObjectStore(
  repoRoot: string,
  ours: string,
  theirs: string,
): Promise<{ tree: string; conflicted?: undefined } | { tree?: undefined; conflicted: string[] }> {
  const output = await runGit(['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', ours, theirs], {
    cwd: repoRoot,
    okExitCodes: [1],
  });
  // The tree comes first; after it, on a conflict (exit 1), one field per conflicted file.
  const [tree, ...conflicted] = nulFields(output.stdout);
  return output.exitCode === 1 ? { conflicted: [...new Set(conflicted)] } : { tree: tree! };
}

async function commitTree(
  cwd: string,
  tree: string,
  parents: readonly string[],
  commit: { readonly message: string; readonly identity: CommitIdentity },
): Promise<string> {
  const parentArgs = parents.flatMap((parent) => ['-p', parent]);
  return (
    await gitText(['commit-tree', tree, ...parentArgs, '-m', commit.message], { cwd, env: commit.identity })
  ).trim();
}

/**
 * Puts the commit of the worktree's files on the session's branch: the ref moves (only if the branch is still
 * where it was) and the index is reset to it, so the worktree reads clean and its files stay untouched.
 */
async function adoptCommit(checkout: WorktreeCheckout, from: string, to: string): Promise<void> {
  const cwd = checkout.path;
  await runGit(['update-ref', '-m', 'outrigger: commit the session', `refs/heads/${checkout.branch}`, to, from], {
    cwd,
  });
  await runGit(['reset', '--quiet', '--mixed'], { cwd });
}

function mergeMessage(branch: string, baseBranch: string, message: string | undefined): string {
  const subject = `Merge branch '${branch}' into ${baseBranch}`;
  const body = oneLine(message ?? '');
  return body === '' ? subject : `${subject}\n\nOutrigger session: ${body}`;
}

/** A title as one line of a commit message (an argument can hold no NUL). */
function oneLine(text: string): string {
  return text.replaceAll('\0', ' ').replace(/\s+/g, ' ').trim();
}
