import { z } from 'zod';
import { hostLimits } from './limits.ts';

/*
 * Review and undo. At the start and the end of every turn the host records a checkpoint: a snapshot of the
 * session's working directory in a shadow git repository of its own (in the data directory; never the
 * user's `.git`), honouring `.gitignore`. A turn's changes are the difference of its two checkpoints,
 * whatever made them (Edit, Write, Bash, a hook's formatter).
 */

/** A checkpoint's id: the commit of the snapshot in the session's shadow repository. */
export const checkpointIdSchema = z.string().regex(/^[0-9a-f]{40}$/, { error: 'a checkpoint id (40 hex digits)' });

/** `working`: the working directory as it is now (not a recorded checkpoint). */
export const WORKING_TREE = 'working';
const checkpointOrWorking = z.union([checkpointIdSchema, z.literal(WORKING_TREE)]);

export const changedFileSchema = z.object({
  path: z.string(),
  /** The path before a rename; null otherwise. */
  oldPath: z.string().nullable(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  /** Not shown as text (a NUL byte): no line counts, no hunks. */
  binary: z.boolean(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  /** git's file mode (`100644`, `100755` executable, `120000` symlink); null where the file is absent. */
  oldMode: z.string().nullable(),
  newMode: z.string().nullable(),
});
export type ChangedFile = z.output<typeof changedFileSchema>;

/** `turn_start`/`turn_end` bracket a turn; `safety` is taken before a rewind or a revert, so it can be undone. */
export const checkpointKinds = ['turn_start', 'turn_end', 'safety'] as const;
export type CheckpointKind = (typeof checkpointKinds)[number];

export const checkpointSchema = z.object({
  id: checkpointIdSchema,
  kind: z.enum(checkpointKinds),
  /** The turn it brackets, or (for `safety`) the turn a rewind went back to; null for a revert outside a turn. */
  turnId: z.string().nullable(),
  createdAt: z.number(),
});
export type Checkpoint = z.output<typeof checkpointSchema>;

/** What changed from one state of the directory to another. */
export const changeSetSchema = z.object({
  from: checkpointIdSchema.nullable(),
  /**
   * A checkpoint, or `working` while the turn runs. For the session: its last turn's end while idle (later edits
   * in a shared directory are not its own), `working` while a turn runs or after a rewind or revert.
   */
  to: checkpointOrWorking.nullable(),
  files: z.array(changedFileSchema),
});
export type ChangeSet = z.output<typeof changeSetSchema>;

export const turnChangesSchema = changeSetSchema.extend({
  turnId: z.string(),
  /** Why the turn has no diff (git missing, a checkpoint that failed); null when it has one. */
  error: z.string().nullable(),
});
export type TurnChanges = z.output<typeof turnChangesSchema>;

/** `GET /api/sessions/:id/changes`: every turn's changes, and the session's since its first checkpoint. */
export const sessionChangesSchema = z.object({
  session: changeSetSchema,
  turns: z.array(turnChangesSchema),
  checkpoints: z.array(checkpointSchema),
  /** Checkpoints cannot be read at all (git is not installed, the shadow repository is damaged). */
  error: z.string().nullable(),
});
export type SessionChanges = z.output<typeof sessionChangesSchema>;

export const filePatchQuerySchema = z.strictObject({
  from: checkpointIdSchema,
  to: checkpointOrWorking,
  path: z.string().min(1).max(hostLimits.maxPathChars),
});
export type FilePatchQuery = z.output<typeof filePatchQuerySchema>;

export const diffHunkSchema = z.object({
  index: z.number().int().nonnegative(),
  /** The `@@ -a,b +c,d @@` line. */
  header: z.string(),
  oldStart: z.number().int().nonnegative(),
  oldLines: z.number().int().nonnegative(),
  newStart: z.number().int().nonnegative(),
  newLines: z.number().int().nonnegative(),
  /** Each line starts with ` `, `+`, `-` or `\`. */
  lines: z.array(z.string()),
});
export type DiffHunk = z.output<typeof diffHunkSchema>;

/** `GET /api/sessions/:id/patch`: one file's unified diff between two states, in hunks. */
export const filePatchSchema = z.object({
  file: changedFileSchema,
  /** The unified diff text; empty for a binary file. */
  patch: z.string(),
  hunks: z.array(diffHunkSchema),
  /** The patch was longer than `hostLimits.maxPatchChars`: `patch` and `hunks` are cut there. */
  truncated: z.boolean(),
});
export type FilePatch = z.output<typeof filePatchSchema>;

/**
 * `POST /api/sessions/:id/rewind`: the working directory back to before `turnId` (its `turn_start`
 * checkpoint), or to any `checkpointId` (a `safety` one undoes a rewind). Refused while a turn runs.
 * With `dryRun` it only says what it would change.
 */
export const rewindBodySchema = z
  .strictObject({
    turnId: z.string().trim().min(1).optional(),
    checkpointId: checkpointIdSchema.optional(),
    dryRun: z.boolean().optional(),
  })
  .refine((body) => (body.turnId === undefined) !== (body.checkpointId === undefined), {
    error: 'name exactly one of turnId or checkpointId',
  });
export type RewindBody = z.output<typeof rewindBodySchema>;

/**
 * `POST /api/sessions/:id/revert`: one file of a diff back to its state at `from`, or (with `hunk`) one hunk
 * of the `from` → `to` diff undone in the working directory.
 */
export const revertBodySchema = z.strictObject({
  from: checkpointIdSchema,
  to: checkpointOrWorking,
  path: z.string().min(1).max(hostLimits.maxPathChars),
  hunk: z.number().int().nonnegative().optional(),
  dryRun: z.boolean().optional(),
});
export type RevertBody = z.output<typeof revertBodySchema>;

/** What a rewind or a revert changed (or, as a dry run, would change). */
export const rewindResultSchema = z.object({
  dryRun: z.boolean(),
  /** The state the directory was taken back to (for a hunk revert: the diff's `from`). */
  target: checkpointIdSchema,
  files: z.array(changedFileSchema),
  /** The directory as it was before; rewinding to it undoes this. Null for a dry run. */
  safetyCheckpoint: checkpointSchema.nullable(),
});
export type RewindResult = z.output<typeof rewindResultSchema>;
