/** A session's git worktree: where it is, its branch, and where that branch started. */
export interface WorktreeCheckout {
  /** The top of the work tree the session was started from (the user's repository). */
  readonly repoRoot: string;
  /** The worktree's own top directory, under the host's data directory. */
  readonly path: string;
  /** `outrigger/<slug>`, checked out in the worktree. */
  readonly branch: string;
  /** The branch HEAD was on when the worktree was made, which a merge goes into; null when HEAD was detached. */
  readonly baseBranch: string | null;
  readonly baseCommit: string;
  /** Where the session runs: the same subdirectory of the worktree as the directory the user chose. */
  readonly sessionCwd: string;
}
