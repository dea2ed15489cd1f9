import { z } from 'zod';
import { changedFileSchema } from './checkpoints.ts';

/*
 * A session in a git worktree of its own: created with `worktree: true`, the host adds a worktree and a
 * branch `outrigger/<slug>` from the repository's HEAD under its data directory, and the session runs
 * there. Several sessions on one repository then never touch each other's files.
 */

/** `active`: the worktree exists; `kept`: removed, its branch kept; `discarded`: worktree and branch removed. */
export const worktreeStates = ['active', 'kept', 'discarded'] as const;
export type WorktreeState = (typeof worktreeStates)[number];

export const sessionWorktreeSchema = z.object({
  /** The user's repository (its main working tree). */
  repoRoot: z.string(),
  /** Where the worktree is, under the host's data directory. */
  path: z.string(),
  branch: z.string(),
  /** The branch the worktree started from, which a merge goes into; null when HEAD was detached. */
  baseBranch: z.string().nullable(),
  baseCommit: z.string(),
  state: z.enum(worktreeStates),
  /** The base branch's commit after the last merge of this session's work; null before any. */
  mergedCommit: z.string().nullable(),
});
export type SessionWorktree = z.output<typeof sessionWorktreeSchema>;

/** `GET /api/sessions/:id/worktree`: the branch and what it changes against its base. */
export const worktreeStatusSchema = z.object({
  worktree: sessionWorktreeSchema,
  /** The worktree's state (commits on its branch and uncommitted files) against `baseCommit`. */
  files: z.array(changedFileSchema),
  commitsAhead: z.number().int().nonnegative(),
  uncommitted: z.boolean(),
});
export type WorktreeStatus = z.output<typeof worktreeStatusSchema>;

/**
 * `POST /api/sessions/:id/worktree`: `merge` the session's work into the base branch (a fast-forward when
 * possible unless `fastForward: 'never'`; on conflict nothing changes and the answer is `409 conflict`
 * with one detail per file); `keep` the branch and remove the worktree; `discard` both (`confirm: true`).
 * `keep` and `discard` close the session. Refused while a turn runs.
 */
export const worktreeActionBodySchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('merge'), fastForward: z.enum(['allow', 'never']).optional() }),
  z.strictObject({ action: z.literal('keep') }),
  z.strictObject({ action: z.literal('discard'), confirm: z.literal(true) }),
]);
export type WorktreeActionBody = z.output<typeof worktreeActionBodySchema>;

export const worktreeActionResponseSchema = z.object({
  worktree: sessionWorktreeSchema,
  /** `merge`: whether it was a fast-forward; null for the other actions or when there was nothing to merge. */
  fastForward: z.boolean().nullable(),
});
export type WorktreeActionResponse = z.output<typeof worktreeActionResponseSchema>;
