import { z } from 'zod';
import { hostLimits } from './limits.ts';
import { messagesPageSchema } from './turns.ts';

/*
 * Claude Code's own history (`GET /api/history…`): the sessions Claude Code keeps as JSONL transcripts under
 * `<config dir>/projects` (`~/.claude`, or `CLAUDE_CONFIG_DIR`), whether they ran in a terminal, in Outrigger or
 * in another program. Read-only: the host never writes a transcript; "continue" makes an Outrigger session that
 * resumes or forks one.
 */

/** A Claude Code session id names its transcript file (`<id>.jsonl`): only a UUID is accepted. */
export const claudeSessionIdSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { error: 'not a Claude Code session id' });

export const historySessionSchema = z.object({
  claudeSessionId: z.string(),
  /** The directory Claude Code ran in, as its transcript records it. */
  cwd: z.string(),
  /** The name set with `/rename`, else Claude Code's summary, else the first prompt. */
  title: z.string(),
  firstPrompt: z.string().nullable(),
  /** The git branch Claude Code recorded last; null when it recorded none. */
  gitBranch: z.string().nullable(),
  createdAt: z.number().nullable(),
  /** The transcript's last write (its modification time). */
  lastActivityAt: z.number(),
  /** User and assistant messages in the conversation (what a reader pages through, before rows are split). */
  messageCount: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  /**
   * Written in the last `historyTiming.recentlyActiveMs`: it may be open in a terminal right now, and resuming
   * it would interleave two writers (Claude Code has no lock). Continue offers a fork instead.
   */
  recentlyActive: z.boolean(),
  /** The directory still exists; a session whose directory is gone can be read, not continued. */
  cwdExists: z.boolean(),
  /** The Outrigger session that resumed this one; continuing it again is refused with a link to that one. */
  outriggerSessionId: z.string().nullable(),
});
export type HistorySession = z.output<typeof historySessionSchema>;

export const historyProjectSchema = z.object({
  cwd: z.string(),
  cwdExists: z.boolean(),
  /** Newest first. */
  sessions: z.array(historySessionSchema),
});
export type HistoryProject = z.output<typeof historyProjectSchema>;

export const historyListQuerySchema = z.strictObject({
  /** Matched case-insensitively, as typed, against the title, the first prompt, the directory and the branch. */
  q: z.string().trim().min(1).max(hostLimits.maxSearchChars).optional(),
});

export const historyListSchema = z.object({
  /** The Claude config dir whose `projects` folder this lists. */
  configDir: z.string(),
  /** Projects by their newest session, newest first; only directories under the host's allowed roots. */
  projects: z.array(historyProjectSchema),
  /** Sessions listed (after the search). */
  total: z.number().int().nonnegative(),
  /** Sessions in directories outside the allowed roots, not listed. */
  hiddenOutsideRoots: z.number().int().nonnegative(),
  /** `indexing` until the first index is complete (the list holds what is indexed so far). */
  indexState: z.enum(['indexing', 'ready']),
  /** Increases with every change to the index; `history_changed` events carry the same number. */
  revision: z.number().int().nonnegative(),
});
export type HistoryList = z.output<typeof historyListSchema>;

/** Why a transcript may not show everything it holds. Every one is shown above the transcript, in words. */
export const historyNoteKinds = [
  /** Lines that are not JSON (a truncated write, a damaged file): skipped. */
  'corrupt_lines',
  /** Entries of a kind this Outrigger does not know: skipped. */
  'unknown_entries',
  /** Written by a newer Claude Code than the one Outrigger runs: some of it may not show. */
  'newer_version',
  /** Tool outputs cut to `hostLimits.toolResultPreviewChars`. */
  'outputs_cut',
  /** The session's directory no longer exists. */
  'cwd_missing',
  /** Subagent transcripts that could not be read. */
  'subagent_unreadable',
  /** Nothing in the transcript can be shown (an empty file, only metadata, only damaged lines). */
  'empty',
] as const;
export type HistoryNoteKind = (typeof historyNoteKinds)[number];

export const historyNoteSchema = z.object({
  kind: z.enum(historyNoteKinds),
  message: z.string(),
  /** How many lines, entries or outputs it concerns; null when it is not a count. */
  count: z.number().int().nonnegative().nullable(),
});
export type HistoryNote = z.output<typeof historyNoteSchema>;

/** Paged like a session's messages: newest page first, then `before` = the page's first `position`. */
export const historyMessagesQuerySchema = z.strictObject({
  before: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().min(1).max(hostLimits.messagesPageMax).optional(),
});
export type HistoryMessagesQuery = z.output<typeof historyMessagesQuerySchema>;

/**
 * One page of a transcript, in the rows a live session has (text, thinking, tool calls with their results and
 * file changes, subagent calls under their Agent call, compaction notices). `turns` is empty: a transcript has
 * no Outrigger turns. Every row is `complete`; its `turnId` is the Claude Code prompt it answers.
 */
export const historyTranscriptSchema = z.object({
  session: historySessionSchema,
  page: messagesPageSchema,
  /** Rows in the whole transcript. */
  totalRows: z.number().int().nonnegative(),
  notes: z.array(historyNoteSchema),
});
export type HistoryTranscript = z.output<typeof historyTranscriptSchema>;

/**
 * `resume`: the Outrigger session continues this Claude Code session (its transcript, its id). `fork`: it
 * continues a copy under a new id, and the original stays as it is (for a session that may be open elsewhere).
 */
export const historyContinueModes = ['resume', 'fork'] as const;
export type HistoryContinueMode = (typeof historyContinueModes)[number];

export const continueHistoryBodySchema = z.strictObject({
  mode: z.enum(historyContinueModes),
  title: z.string().trim().min(1).max(hostLimits.maxTitleChars).optional(),
  /** Resume although the transcript changed in the last minutes (`history_in_use` otherwise). */
  force: z.boolean().optional(),
});
export type ContinueHistoryBody = z.output<typeof continueHistoryBodySchema>;

/** What an Outrigger session continues: shown above its own turns, read from the history (`before` = `rows`). */
export const continuedFromSchema = z.object({
  claudeSessionId: z.string(),
  mode: z.enum(historyContinueModes),
  /** Rows of that transcript before the first Outrigger turn. */
  rows: z.number().int().nonnegative(),
});
export type ContinuedFrom = z.output<typeof continuedFromSchema>;

/** `GET /api/history/events`: not replayed; a client refetches what it shows. */
export const historyChangedEventSchema = z.object({
  revision: z.number().int().nonnegative(),
  /** Sessions added, grown or removed since the previous revision. */
  claudeSessionIds: z.array(z.string()),
});
export type HistoryChangedEvent = z.output<typeof historyChangedEventSchema>;

export const historyTiming = {
  /** A transcript written within this is `recentlyActive`. */
  recentlyActiveMs: 5 * 60_000,
} as const;
