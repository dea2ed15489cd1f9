import { configOptionSchema, contextWindowSchema } from '@outrigger/protocol/schemas';
import { z } from 'zod';
import { continuedFromSchema } from './history.ts';
import { interactionSchema } from './interactions.ts';
import { hostLimits } from './limits.ts';
import { taskSchema } from './tasks.ts';
import { messagesPageSchema, queuedPromptSchema, turnErrorSchema, turnViewSchema } from './turns.ts';
import { sessionWorktreeSchema } from './worktrees.ts';

/**
 * Computed by the host, never by a client: `needs_input` while any interaction of the session is
 * pending; otherwise `running` while a turn or background work is live; `failed` when its last turn
 * failed and none has run since; otherwise `idle`.
 */
export const sessionStatuses = ['idle', 'running', 'needs_input', 'failed'] as const;
export type SessionStatus = (typeof sessionStatuses)[number];

/** `dontAsk` is left out: it would deny every prompt the host is there to answer. */
export const permissionModes = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'auto'] as const;
export type PermissionMode = (typeof permissionModes)[number];

export const effortLevels = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type EffortLevel = (typeof effortLevels)[number];

export const sessionSettingsSchema = z.object({
  /** The user's selection; `default` when none was chosen. */
  model: z.string(),
  permissionMode: z.enum(permissionModes),
  planMode: z.boolean(),
  /** null: Claude Code's default. */
  effort: z.enum(effortLevels).nullable(),
});
export type SessionSettings = z.output<typeof sessionSettingsSchema>;

const title = z.string().trim().min(1).max(hostLimits.maxTitleChars);
const model = z.string().trim().min(1).max(hostLimits.maxModelChars);

export const createSessionBodySchema = z.strictObject({
  /** An existing directory (under one of `--allow-root` when the host was given any). */
  cwd: z.string().trim().min(1).max(hostLimits.maxCwdChars),
  model: model.optional(),
  permissionMode: z.enum(permissionModes).optional(),
  planMode: z.boolean().optional(),
  effort: z.enum(effortLevels).optional(),
  title: title.optional(),
  /** Run the session in a new git worktree of the repository `cwd` is in (a branch `outrigger/<slug>`). */
  worktree: z.boolean().optional(),
});
export type CreateSessionBody = z.output<typeof createSessionBodySchema>;

export const patchSessionBodySchema = z.strictObject({ title });
export type PatchSessionBody = z.output<typeof patchSessionBodySchema>;

export const patchSettingsBodySchema = z
  .strictObject({
    model: model.optional(),
    permissionMode: z.enum(permissionModes).optional(),
    planMode: z.boolean().optional(),
    effort: z.enum(effortLevels).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { error: 'nothing to change' });
export type PatchSettingsBody = z.output<typeof patchSettingsBodySchema>;

export const forkSessionBodySchema = z.strictObject({
  /** The turn to fork at: the new session's transcript is the source's up to and including it. */
  turnId: z.string().trim().min(1),
  title: title.optional(),
});
export type ForkSessionBody = z.output<typeof forkSessionBodySchema>;

export const sessionUsageSchema = z.object({
  contextWindow: contextWindowSchema.nullable(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Sum over the session's turns; null while no turn reported a cost. */
  totalCostUsd: z.number().nullable(),
});
export type SessionUsage = z.output<typeof sessionUsageSchema>;

/** One row of the sidebar. */
export const sessionSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  cwd: z.string(),
  status: z.enum(sessionStatuses),
  /** `DELETE` closed it: history stays readable and forkable; it takes no more turns. */
  closed: z.boolean(),
  /**
   * When it was archived (`POST /api/sessions/:id/archive`): hidden from `GET /api/sessions` unless asked
   * for (`?archived=include|only`), nothing else changes; null while it is not archived.
   */
  archivedAt: z.number().nullable(),
  needsInputCount: z.number().int().nonnegative(),
  runningTurnId: z.string().nullable(),
  /**
   * Some queued prompt is paused (the user stopped the turn it waited behind): nothing starts by itself until
   * the user runs, resumes or removes it. The status stays what it is (`idle` once the stopped turn ended).
   */
  queuePaused: z.boolean(),
  /** When the running turn started (the sidebar's elapsed time); null while none runs. */
  runningTurnStartedAt: z.number().nullable(),
  /** Why the session is `failed`. */
  lastError: turnErrorSchema.nullable(),
  model: z.string(),
  permissionMode: z.enum(permissionModes),
  forkedFrom: z.object({ sessionId: z.string(), turnId: z.string() }).nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Last prompt, output or status change. */
  lastActivityAt: z.number(),
});
export type SessionSummary = z.output<typeof sessionSummarySchema>;

export const sessionDetailSchema = sessionSummarySchema.extend({
  providerSessionId: z.string(),
  settings: sessionSettingsSchema,
  /** The model Claude Code reports it uses (the selection may be `default`). */
  effectiveModel: z.string().nullable(),
  /** Choices the sidecar offers (the model catalogue); empty until Claude Code reported them. */
  configOptions: z.array(configOptionSchema),
  usage: sessionUsageSchema,
  /** The session's own git worktree (then `cwd` is inside it); null for a session in the user's directory. */
  worktree: sessionWorktreeSchema.nullable(),
  /**
   * The shell command that continues this session in a terminal: `cd <cwd> && claude --resume <id>`, with
   * `CLAUDE_CONFIG_DIR=…` first when the host's Claude Code does not use the default config dir.
   */
  terminalCommand: z.string(),
  /** The Claude Code session this one continues (`POST /api/history/:claudeSessionId/continue`), or null. */
  continuedFrom: continuedFromSchema.nullable(),
});
export type SessionDetail = z.output<typeof sessionDetailSchema>;

/** The model choice among a session's config options (Claude Code's model catalogue); undefined before it reported one. */
export function modelOptionOf<T extends { readonly id: string; readonly category?: string | undefined }>(
  options: readonly T[],
): T | undefined {
  return options.find((option) => option.id === 'model' || option.category === 'model');
}

/** Background work still running: a delegated Agent task or a `run_in_background` command. */
export const backgroundTaskSchema = z.object({
  tool_use_id: z.string(),
  turnId: z.string(),
  kind: z.enum(['agent', 'command']),
  taskId: z.string().nullable(),
  description: z.string().nullable(),
  status: z.string(),
  startedAt: z.number(),
});
export type BackgroundTask = z.output<typeof backgroundTaskSchema>;

/**
 * Everything a client needs to rebuild its view after a reload, consistent at `lastSeq`: apply the
 * session stream with `after=lastSeq` on top and nothing is missed or shown twice.
 */
export const sessionSnapshotSchema = z.object({
  session: sessionDetailSchema,
  lastSeq: z.number().int().nonnegative(),
  /** The running user turn, if any. */
  openTurn: turnViewSchema.nullable(),
  pendingInteractions: z.array(interactionSchema),
  queuedPrompts: z.array(queuedPromptSchema),
  backgroundTasks: z.array(backgroundTaskSchema),
  tasks: z.array(taskSchema),
  /** The newest page of the transcript (`hostLimits.messagesPageDefault` rows). */
  messages: messagesPageSchema,
});
export type SessionSnapshot = z.output<typeof sessionSnapshotSchema>;

/** Which sessions a list holds by archive state: `exclude` (the default), `include` or `only` archived ones. */
export const sessionArchiveFilters = ['exclude', 'include', 'only'] as const;
export type SessionArchiveFilter = (typeof sessionArchiveFilters)[number];

export const sessionListQuerySchema = z.strictObject({
  /** `1`/`true`: closed sessions too. */
  includeClosed: z.enum(['0', '1', 'true', 'false']).optional(),
  archived: z.enum(sessionArchiveFilters).optional(),
});

/** `POST /api/sessions/:id/archive`: `true` hides the session from the default list, `false` restores it. */
export const archiveSessionBodySchema = z.strictObject({ archived: z.boolean() });
export type ArchiveSessionBody = z.output<typeof archiveSessionBodySchema>;

/** `POST /api/sessions/:id/delete` takes no fields: the confirmation is the client's (the route is its own). */
export const deleteSessionBodySchema = z.strictObject({});

export const deleteSessionResponseSchema = z.object({
  sessionId: z.string(),
  /**
   * Claude Code keeps its own transcript of the conversation (`<providerSessionId>.jsonl` in a folder for the
   * session's directory under `~/.claude/projects`, or `$CLAUDE_CONFIG_DIR/projects`): the host never deletes
   * it. These are the file names' ids (a session resumed under a new id has several).
   */
  claudeTranscriptIds: z.array(z.string()),
  /** Whether the session's checkpoint shadow repository (`DATA/checkpoints`) was removed (false: it had none). */
  checkpointsRemoved: z.boolean(),
});
export type DeleteSessionResponse = z.output<typeof deleteSessionResponseSchema>;

export const sessionSearchQuerySchema = z.strictObject({
  /** Matched case-insensitively, as typed (no pattern syntax), against titles and every prompt. */
  q: z.string().trim().min(1).max(hostLimits.maxSearchChars),
  includeClosed: z.enum(['0', '1', 'true', 'false']).optional(),
  archived: z.enum(sessionArchiveFilters).optional(),
});

export const sessionSearchHitSchema = z.object({
  session: sessionSummarySchema,
  /** Where it matched: the title, or a prompt (the newest matching one, cut around the match). */
  match: z.object({
    field: z.enum(['title', 'prompt']),
    text: z.string(),
    turnId: z.string().nullable(),
  }),
});
export type SessionSearchHit = z.output<typeof sessionSearchHitSchema>;

export const sessionSearchSchema = z.object({
  /** Newest first, at most `hostLimits.searchResultsMax`. */
  results: z.array(sessionSearchHitSchema),
  truncated: z.boolean(),
});
export type SessionSearch = z.output<typeof sessionSearchSchema>;

export const sessionListSchema = z.object({
  sessions: z.array(sessionSummarySchema),
  /**
   * The host stream's (`GET /api/events`) seq at which this list is consistent: open that stream
   * with `after=lastSeq` and nothing is missed or applied twice.
   */
  lastSeq: z.number().int().nonnegative(),
});
export type SessionList = z.output<typeof sessionListSchema>;

export const createSessionResponseSchema = z.object({
  id: z.string(),
  providerSessionId: z.string(),
  session: sessionSummarySchema,
});
export type CreateSessionResponse = z.output<typeof createSessionResponseSchema>;

export const forkSessionResponseSchema = createSessionResponseSchema;

/** `GET /api/info`: what the UI needs before it shows anything. */
export const hostInfoSchema = z.object({
  version: z.string(),
  /** `demo`: the scripted offline model (no credential was found); `anthropic`: Claude. */
  modelBackend: z.enum(['demo', 'anthropic']),
  /** Why that backend was chosen, in a sentence. */
  modelBackendReason: z.string(),
  /** Where a new session runs when the user does not pick a directory. */
  defaultCwd: z.string(),
  /** Empty: any existing directory. */
  allowRoots: z.array(z.string()),
  limits: z.record(z.string(), z.number()),
});
export type HostInfo = z.output<typeof hostInfoSchema>;
