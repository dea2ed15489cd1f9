/*
 * Sessions in git worktrees of their own: a worktree and a branch `outrigger/<slug>` made from the
 * repository's HEAD under the host's data directory, what the session changed there, and its end (merged
 * into the base branch, kept as a branch, or discarded). Sessions on one repository then run side by side
 * without touching each other's files. Every call runs git with an argument array, never a shell.
 */
export { type CreateWorktreeOptions, createWorktree, repositoryRoot } from './createWorktree.ts';
export { type MergeOptions, type MergeOutcome, mergeWorktree } from './mergeWorktree.ts';
export { type RemoveWorktreeOptions, removeWorktree } from './removeWorktree.ts';
export type { WorktreeChanges } from './worktreeChanges.ts';
export { worktreeChanges } from './worktreeChanges.ts';
export type { WorktreeCheckout } from './worktreeCheckout.ts';
export { WorktreeMergeRefused } from './worktreeMergeRefused.ts';
