import type { SessionWorktree, WorktreeActionResponse, WorktreeStatus } from '@outrigger/host-api';
import { fakeCommitId } from './fakeCheckpoints.ts';
import { diffTrees, type Tree } from './fakeFiles.ts';
import { HttpError } from './httpError.ts';

/** Where the fixture host says it keeps worktrees (the real host: its data directory). */
const worktreesDir = '/home/you/.local/share/outrigger/worktrees';

/**
 * A session's git worktree, in memory: a branch whose directory (`files`) the session works in, against the
 * base branch it came from. Each turn that changed files counts as a commit on the branch (as an agent that
 * commits its work); a merge takes them into the base, unless the base changed the same files meanwhile.
 */
export class FakeWorktree {
  worktree: SessionWorktree;
  readonly files: Tree;
  #base: Tree;
  #committed: Tree;
  #commitsAhead = 0;
  /** Files the base branch changed since the worktree was made: a merge touching them conflicts. */
  readonly #changedOnBase: ReadonlySet<string>;

  constructor(repoRoot: string, slug: string, repoFiles: Tree, options: { changedOnBase?: readonly string[] } = {}) {
    this.files = new Map(repoFiles);
    this.#base = new Map(repoFiles);
    this.#committed = new Map(repoFiles);
    this.#changedOnBase = new Set(options.changedOnBase ?? []);
    this.worktree = {
      repoRoot,
      path: `${worktreesDir}/${slug}`,
      branch: `outrigger/${slug}`,
      baseBranch: 'main',
      baseCommit: fakeCommitId(),
      state: 'active',
      mergedCommit: null,
    };
  }

  /** A turn ended: what it changed is a commit on the branch. */
  turnEnded(): void {
    if (diffTrees(this.#committed, this.files).length === 0) return;
    this.#committed = new Map(this.files);
    this.#commitsAhead += 1;
  }

  status(): WorktreeStatus {
    if (this.worktree.state !== 'active')
      return { worktree: this.worktree, files: [], commitsAhead: 0, uncommitted: false };
    return {
      worktree: this.worktree,
      files: diffTrees(this.#base, this.files),
      commitsAhead: this.#commitsAhead,
      uncommitted: diffTrees(this.#committed, this.files).length > 0,
    };
  }

  merge(): WorktreeActionResponse {
    this.#mustBeActive();
    const files = diffTrees(this.#base, this.files);
    if (files.length === 0) return { worktree: this.worktree, fastForward: null };
    const conflicts = files.filter(
      (file) => this.#changedOnBase.has(file.path) || this.#changedOnBase.has(file.oldPath ?? ''),
    );
    if (conflicts.length > 0)
      throw new HttpError(
        'conflict',
        `merging ${this.worktree.branch} into ${this.worktree.baseBranch} conflicts in ${conflicts.length} file(s); nothing was changed`,
        conflicts.map((file) => ({ path: file.path, message: 'changed on both sides' })),
      );
    this.#base = new Map(this.files);
    this.#committed = new Map(this.files);
    this.#commitsAhead = 0;
    this.worktree = { ...this.worktree, mergedCommit: fakeCommitId() };
    return { worktree: this.worktree, fastForward: true };
  }

  /** Keep the branch, remove the directory; or (`discard`) remove both. */
  remove(discard: boolean): WorktreeActionResponse {
    this.#mustBeActive();
    this.worktree = { ...this.worktree, state: discard ? 'discarded' : 'kept' };
    return { worktree: this.worktree, fastForward: null };
  }

  #mustBeActive(): void {
    if (this.worktree.state !== 'active')
      throw new HttpError(
        'conflict',
        `the worktree was already ${this.worktree.state === 'kept' ? 'removed' : 'discarded'}`,
      );
  }
}
