import { toolCallTypes } from '@outrigger/protocol/schemas';
import { z } from 'zod';
import {
  interactionAnswerSchema,
  interactionKinds,
  interactionResolutions,
  sessionGrantSchema,
} from './interactions.ts';
import { imageMediaTypes } from './limits.ts';

/*
 * The persisted transcript. A message is one row of it, in the order things happened: a user prompt,
 * one assistant text or thinking block, one tool call with its result, or a notice (compaction, an
 * interrupted partial answer). Every row is a fold of the session's event log up to the snapshot's
 * `lastSeq`, so a client that loads a page and then applies the stream after `lastSeq` shows exactly
 * what a client that watched from the start shows.
 *
 * Timestamps are epoch milliseconds.
 */

export const messageRoles = ['user', 'assistant', 'system'] as const;
export type MessageRole = (typeof messageRoles)[number];

/** `streaming` while deltas arrive; `interrupted` when the turn ended (cancel, crash, cut stream) before it completed. */
export const messageStatuses = ['streaming', 'complete', 'interrupted'] as const;
export type MessageStatus = (typeof messageStatuses)[number];

export const textBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
export const thinkingBlockSchema = z.object({ type: z.literal('thinking'), thinking: z.string() });

/** An image the user attached; its bytes are at `GET /api/attachments/:attachmentId`. */
export const imageBlockSchema = z.object({
  type: z.literal('image'),
  attachmentId: z.string(),
  mediaType: z.enum(imageMediaTypes),
  bytes: z.number().int().nonnegative(),
});

export const toolStatuses = ['running', 'completed', 'failed'] as const;
export type ToolStatus = (typeof toolStatuses)[number];

/**
 * What a diff view needs for Edit / MultiEdit / Write / NotebookEdit: the edits from the input, and
 * Claude Code's structured patch (with line numbers) once the tool has run.
 */
export const fileChangeSchema = z.object({
  path: z.string(),
  operation: z.enum(['create', 'edit', 'multi_edit', 'notebook_edit']),
  /** Old → new text pairs in the order Claude Code applies them; one for Edit, several for MultiEdit. */
  edits: z.array(z.object({ oldText: z.string(), newText: z.string(), replaceAll: z.boolean().optional() })),
  /** The whole new file for Write (`create`, also when it overwrites). */
  content: z.string().optional(),
  /** Unified-diff hunks from the tool's result, when Claude Code reported them. */
  structuredPatch: z
    .array(
      z.object({
        oldStart: z.number(),
        oldLines: z.number(),
        newStart: z.number(),
        newLines: z.number(),
        lines: z.array(z.string()),
      }),
    )
    .optional(),
});
export type FileChange = z.output<typeof fileChangeSchema>;

/** A delegated (Agent tool) task, reported on the tool call that launched it. */
export const agentTaskSchema = z.object({
  taskId: z.string().nullable(),
  agentId: z.string().nullable(),
  /** The SDK's task status, e.g. `running`, `completed`, `failed`, `stopped`. */
  status: z.string(),
  description: z.string().nullable(),
  summary: z.string().nullable(),
  lastToolName: z.string().nullable(),
  usage: z.record(z.string(), z.unknown()).nullable(),
  updatedAt: z.number(),
});
export type AgentTask = z.output<typeof agentTaskSchema>;

/** A `run_in_background` command: the call completes at launch, the process keeps running. */
/** Task statuses (a background command's, an Agent task's) after which it runs no more. */
export const endedTaskStatuses: ReadonlySet<string> = new Set([
  'completed',
  'failed',
  'stopped',
  'killed',
  'canceled',
  'cancelled',
  'error',
]);

export const backgroundProcessSchema = z.object({
  taskId: z.string().nullable(),
  status: z.string(),
});

/**
 * How a call ended, once it has: `completed`; `failed` (the tool reported an error); `denied` (the person
 * refused it: an approval denied, a question skipped, a plan sent back); `canceled` (its turn was stopped);
 * `timed_out` (it ran past the host's `--tool-timeout`, set while the call still runs); `stopped` (it was
 * cut short without a result: the host stopped, the agent process exited, or its turn ended first).
 */
export const toolOutcomes = ['completed', 'failed', 'denied', 'canceled', 'timed_out', 'stopped'] as const;
export type ToolOutcome = (typeof toolOutcomes)[number];

/**
 * What the person decided on the call's approval, question or plan. `not_answered`: the request went
 * away first (`resolution` says why).
 */
export const toolDecisionChoices = [
  'allowed_once',
  'allowed_for_session',
  'denied',
  'answered',
  'skipped',
  'plan_approved',
  'kept_planning',
  'not_answered',
] as const;
export type ToolDecisionChoice = (typeof toolDecisionChoices)[number];

/** One AskUserQuestion question with what was chosen (option labels and "Other" text, in order). */
export const answeredQuestionSchema = z.object({
  question: z.string(),
  header: z.string().nullable(),
  answers: z.array(z.string()),
  notes: z.string().nullable(),
});
export type AnsweredQuestion = z.output<typeof answeredQuestionSchema>;

/** The decision, stored with the call so that it reads the same live and after a reload. */
export const toolDecisionSchema = z.object({
  requestId: z.string(),
  kind: z.enum(interactionKinds),
  choice: z.enum(toolDecisionChoices),
  resolution: z.enum(interactionResolutions),
  /** The answer as it was sent (null when not answered). */
  answer: interactionAnswerSchema.nullable(),
  /** `denied`: the reason the person gave, which Claude read; null when they gave none. */
  denyMessage: z.string().nullable(),
  /** `allowed_for_session`: what the grant covers; null when the agent did not say. */
  sessionGrant: sessionGrantSchema.nullable(),
  /** `answered`: each question with its chosen answers, in the order asked. */
  questions: z.array(answeredQuestionSchema),
  /** `plan_approved`: the permission mode the session goes on in. */
  permissionMode: z.string().nullable(),
  decidedAt: z.number(),
});
export type ToolDecision = z.output<typeof toolDecisionSchema>;

export const toolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  /** The `tool_use_id`. */
  id: z.string(),
  name: z.string(),
  callType: z.enum(toolCallTypes),
  input: z.record(z.string(), z.unknown()),
  status: z.enum(toolStatuses),
  /** Set on calls a subagent made: the Agent tool call they belong under. */
  parentToolUseId: z.string().nullable(),
  /** File paths the call touches. */
  locations: z.array(z.string()),
  fileChange: fileChangeSchema.nullable(),
  agentTask: agentTaskSchema.nullable(),
  background: backgroundProcessSchema.nullable(),
  /** Latest live output (`tool_output`), cut to the preview length; the result replaces it. */
  output: z.string().nullable(),
  /** Host clock; the duration a client shows is `endedAt - startedAt`, live and after a reload alike. */
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  /** How the call ended (see `toolOutcomes`); null while it runs, except `timed_out`, set when it is hit. */
  outcome: z.enum(toolOutcomes).nullable(),
  /** What the person decided on this call's approval, question or plan; null when nobody was asked. */
  decision: toolDecisionSchema.nullable(),
  /**
   * How long the tool has run by Claude Code's own clock, from its latest progress report (Claude Code
   * sends a heartbeat every 30 s while a tool shows no output); null until one arrives.
   */
  elapsedSeconds: z.number().nullable(),
});
export type ToolUseBlock = z.output<typeof toolUseBlockSchema>;

/**
 * Where a result came from. Dedup rank: `canonical` (the tool_result Claude Code put in the
 * transcript) beats `hook` (PostToolUse, early) whatever the arrival order; equal ranks: last wins.
 * `synthesized` is the host's error result for a call left open by a cancel or crash; any real
 * result replaces it.
 */
export const resultSources = ['synthesized', 'hook', 'canonical'] as const;
export type ResultSource = (typeof resultSources)[number];

export const toolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  /** The result text, cut to `hostLimits.toolResultPreviewChars` when `truncated`. */
  content: z.string(),
  is_error: z.boolean(),
  resultSource: z.enum(resultSources),
  truncated: z.boolean(),
  /** Length of the whole result text, in UTF-16 units. */
  length: z.number().int().nonnegative(),
});
export type ToolResultBlock = z.output<typeof toolResultBlockSchema>;

export const contentBlockSchema = z.discriminatedUnion('type', [
  textBlockSchema,
  thinkingBlockSchema,
  imageBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
]);
export type ContentBlock = z.output<typeof contentBlockSchema>;

/** Kinds of `system` rows. */
/**
 * `outside_changes`: the Claude Code transcript grew while Outrigger was not running a turn (the session was
 * continued in a terminal); its text renders the new messages.
 */
export const noticeKinds = ['compaction', 'partial_answer', 'error', 'outside_changes'] as const;
export type NoticeKind = (typeof noticeKinds)[number];

export const messageViewSchema = z.object({
  /** Unique in the session and stable: the same row keeps its id across updates and replays. */
  id: z.string(),
  session_id: z.string(),
  turnId: z.string(),
  /** Transcript position, increasing in the session; pages are cut by it. */
  position: z.number().int().nonnegative(),
  role: z.enum(messageRoles),
  status: z.enum(messageStatuses),
  /**
   * user: text and image blocks. assistant: exactly one text, thinking or tool_use block; a tool row
   * also holds its one tool_result block once there is one. system: one text block.
   */
  content: z.array(contentBlockSchema),
  /** system rows only. */
  noticeKind: z.enum(noticeKinds).nullable(),
  /** A prompt sent with `mode:"steer"` into a running turn. */
  steer: z.boolean(),
  clientMessageId: z.string().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type MessageView = z.output<typeof messageViewSchema>;

export const messagesQuerySchema = z.strictObject({
  /** Only rows with a smaller `position`; absent: from the newest. */
  before: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
export type MessagesQuery = z.output<typeof messagesQuerySchema>;
