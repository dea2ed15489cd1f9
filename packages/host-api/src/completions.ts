import { configOptionValueSchema, slashCommandSchema } from '@outrigger/protocol/schemas';
import { z } from 'zod';
import { hostLimits } from './limits.ts';

/*
 * What the composer and the model picker offer: the models Claude Code reports, a session's slash commands,
 * and file paths under a session's directory for `@`.
 */

/** `GET /api/models`: the models Claude Code reported, for a session not started yet. */
export const modelCatalogueSchema = z.object({
  /** As the newest session that reported them got them (`value` is what `model` takes); empty until one did. */
  models: z.array(configOptionValueSchema),
  /** When that session last changed; null while no session reported any. */
  reportedAt: z.number().nullable(),
});
export type ModelCatalogue = z.output<typeof modelCatalogueSchema>;

/** `GET /api/sessions/:id/commands`: what `/` lists. */
export const sessionCommandsSchema = z.object({
  /**
   * As Claude Code reported them for the session (built-in, the project's `.claude/commands`, skills, MCP
   * prompts as `mcp:…`), without the ones only its terminal UI can run; empty until it reported any.
   */
  commands: z.array(slashCommandSchema),
});
export type SessionCommands = z.output<typeof sessionCommandsSchema>;

export const fileCompletionQuerySchema = z.strictObject({
  /**
   * What follows the `@`: a path relative to the session's directory (`/` separated). Files whose path contains
   * it (case-insensitive) are offered, those whose name starts with it first. Empty: the first files.
   */
  prefix: z.string().max(hostLimits.maxPathChars).optional(),
});

export const fileCompletionEntrySchema = z.object({
  /** Relative to the session's directory, `/` separated; a directory ends in `/`. */
  path: z.string(),
  kind: z.enum(['file', 'directory']),
});
export type FileCompletionEntry = z.output<typeof fileCompletionEntrySchema>;

export const fileCompletionSchema = z.object({
  entries: z.array(fileCompletionEntrySchema),
  /** More matched than `hostLimits.fileCompletionsMax`, or the walk stopped at its bound. */
  truncated: z.boolean(),
  /** `git`: the repository's tracked and untracked files that `.gitignore` does not exclude; `walk`: a bounded walk honouring `.gitignore`. */
  source: z.enum(['git', 'walk']),
});
export type FileCompletion = z.output<typeof fileCompletionSchema>;
