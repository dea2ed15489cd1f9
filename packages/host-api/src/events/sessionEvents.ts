import { cancelDispositions, configOptionSchema } from '@outrigger/protocol/schemas';
import { z } from 'zod';
import { changedFileSchema, checkpointIdSchema, checkpointSchema } from '../checkpoints.ts';
import {
  interactionAnswerSchema,
  interactionResolutions,
  interactionSchema,
  interactionStatuses,
} from '../interactions.ts';
import { agentTaskSchema, messageViewSchema, toolResultBlockSchema, toolUseBlockSchema } from '../messages.ts';
import {
  backgroundTaskSchema,
  permissionModes,
  sessionSettingsSchema,
  sessionStatuses,
  sessionUsageSchema,
} from '../sessions.ts';
import { sdkTodoSchema, taskSchema } from '../tasks.ts';
import { queuedPromptSchema, terminalTurnStatuses, turnErrorSchema, turnUsageSchema } from '../turns.ts';
import { sessionWorktreeSchema } from '../worktrees.ts';

/*
 * The events of one session's stream (`GET /api/sessions/:id/events`). Each is stored in the session's
 * event log with a monotonic `seq` before any client sees it, and sent as one SSE frame:
 *
 *   id: <seq>
 *   event: <type>
 *   data: <the payload below, one JSON object>
 *
 * Every payload carries `session_id` (the host's session id) and `seq`; every turn-scoped one its
 * `turnId`. The seed's twelve types come first, then the contract's additions.
 */

const base = { session_id: z.string(), seq: z.number().int().positive() };
const turnScoped = { ...base, turnId: z.string() };

export const sessionEventPayloadSchemas = {
  /** A streamed assistant text delta (`assistant_delta`), or its completion with the whole text. */
  text: z.object({
    ...turnScoped,
    /** The transcript row the text belongs to. */
    messageId: z.string(),
    delta: z.string(),
    /** The block is complete; `text` is its whole content and replaces what the deltas built. */
    final: z.boolean(),
    text: z.string().optional(),
    /** The block was cut off (cancel, crash, a stream cut that Claude Code retried): show it as interrupted. */
    interrupted: z.boolean(),
  }),
  /** A tool call appeared or changed (input, status, file change, background state): upsert by `tool.id`. */
  tool_use: z.object({ ...turnScoped, messageId: z.string(), tool: toolUseBlockSchema }),
  /**
   * A tool result. Apply the dedup rank: `canonical` beats `hook` whatever the order, equal ranks
   * last wins, anything beats `synthesized`. The stored transcript already holds only the winner.
   */
  tool_result: z.object({
    ...turnScoped,
    messageId: z.string(),
    tool_use_id: z.string(),
    /** The tool call's status after this result. */
    status: z.enum(['completed', 'failed']),
    result: toolResultBlockSchema,
    /** The call as stored after this result (its `endedAt`, `outcome`, `decision`); absent in older logs. */
    tool: toolUseBlockSchema.optional(),
  }),
  /** Live output of a running tool (cut to the preview length). */
  tool_output: z.object({ ...turnScoped, messageId: z.string(), tool_use_id: z.string(), output: z.string() }),
  /** A tool ran past the host's `--tool-timeout` (off by default); the host cancels the turn next. */
  tool_timeout: z.object({
    ...turnScoped,
    tool_use_id: z.string(),
    toolName: z.string(),
    elapsedSeconds: z.number(),
  }),
  /** The agent's plan changed: the seed's raw todos and the task rows after the sync. */
  task_update: z.object({
    ...turnScoped,
    todos: z.array(sdkTodoSchema),
    tasks: z.array(taskSchema),
  }),
  /** The session's status, whenever it changes, and first on every (re)connect. */
  status: z.object({
    ...base,
    status: z.enum(sessionStatuses),
    closed: z.boolean(),
    needsInputCount: z.number().int().nonnegative(),
    runningTurnId: z.string().nullable(),
    /** As `SessionSummary.queuePaused`. */
    queuePaused: z.boolean(),
    lastError: turnErrorSchema.nullable(),
  }),
  /** How a turn that ran to its end ended; `done` follows. */
  result: z.object({
    ...turnScoped,
    outcome: z.enum(['completed', 'failed']),
    stopReason: z.string().nullable(),
    error: turnErrorSchema.nullable(),
    usage: turnUsageSchema.nullable(),
    durationMs: z.number().nullable(),
  }),
  /** The agent needs a person: an approval, a question or a plan. */
  permission_request: z.object({ ...turnScoped, interaction: interactionSchema }),
  /** The permission mode changed (the user, or ExitPlanMode's choice). */
  mode_changed: z.object({ ...base, permissionMode: z.enum(permissionModes), planMode: z.boolean() }),
  /** Something went wrong that does not end a turn (a turn's end carries its own error). */
  error: z.object({ ...base, turnId: z.string().nullable(), code: z.string(), message: z.string() }),
  /** Exactly one per turn, always last: the turn is over and the session takes the next prompt. */
  done: z.object({ ...turnScoped, outcome: z.enum(terminalTurnStatuses), error: turnErrorSchema.nullable() }),

  /** A streamed thinking delta, or its completion. Same fields as `text`. */
  thinking: z.object({
    ...turnScoped,
    messageId: z.string(),
    delta: z.string(),
    final: z.boolean(),
    text: z.string().optional(),
    interrupted: z.boolean(),
  }),
  /** A turn began running: a prompt taken from the queue or sent to a free session, or a synthetic continuation. */
  turn_started: z.object({
    ...turnScoped,
    kind: z.enum(['user', 'synthetic']),
    /** The user's prompt row (user turns). */
    message: messageViewSchema.nullable(),
  }),
  /** The turn was canceled; `done` follows. */
  turn_canceled: z.object({
    ...turnScoped,
    disposition: z.enum(cancelDispositions).nullable(),
    reason: z.string().nullable(),
  }),
  permission_resolved: z.object({
    ...turnScoped,
    requestId: z.string(),
    status: z.enum(interactionStatuses),
    resolution: z.enum(interactionResolutions),
    answer: interactionAnswerSchema.nullable(),
  }),
  /** The background work of the session changed (the full list of what still runs). */
  background_tasks: z.object({ ...base, turnId: z.string().nullable(), tasks: z.array(backgroundTaskSchema) }),
  /** The model's stream has been silent this long; at the stall budget the turn fails. */
  turn_stalled: z.object({ ...turnScoped, silentMs: z.number() }),
  usage: z.object({ ...base, turnId: z.string().nullable(), usage: sessionUsageSchema }),
  title: z.object({ ...base, title: z.string() }),

  /** A prompt row: the one a turn starts with is in `turn_started`; this one is a steer into a running turn. */
  user_message: z.object({ ...turnScoped, message: messageViewSchema }),
  /** The queue of prompts waiting behind the running turn (or paused), whole, whenever it changes. */
  queue: z.object({ ...base, queuedPrompts: z.array(queuedPromptSchema) }),
  /** A delegated (Agent tool) task changed; it belongs under the tool call `tool_use_id`. */
  agent_task: z.object({ ...turnScoped, messageId: z.string(), tool_use_id: z.string(), task: agentTaskSchema }),
  /** A system row: compaction started/completed/failed, or a partial answer Claude Code retried. */
  notice: z.object({ ...turnScoped, message: messageViewSchema }),
  /**
   * A user task was added, edited or deleted (through `/api/tasks`, from any client): the session's
   * tasks after the change, SDK plan first. Every tab's task panel follows without a reload.
   */
  tasks_changed: z.object({ ...base, tasks: z.array(taskSchema) }),
  /**
   * Settings changed (model, permission mode, plan mode, effort), or Claude Code reported its model or its
   * choices (`configOptions`, present when they changed: the model list a settings bar offers arrives with
   * the session's first start, after the client loaded it).
   */
  settings: z.object({
    ...base,
    settings: sessionSettingsSchema,
    effectiveModel: z.string().nullable(),
    configOptions: z.array(configOptionSchema).optional(),
  }),
  /**
   * A checkpoint of the working directory was recorded (`checkpoint`, with how many files the turn changed
   * when it is a `turn_end`), or could not be (`error` says why: git missing, a damaged shadow repository).
   * A failed checkpoint never fails its turn.
   */
  checkpoint: z.object({
    ...base,
    turnId: z.string().nullable(),
    checkpoint: checkpointSchema.nullable(),
    filesChanged: z.number().int().nonnegative().nullable(),
    error: z.string().nullable(),
  }),
  /** A rewind or a revert changed the working directory; rewinding to `safetyCheckpoint` undoes it. */
  files_rewound: z.object({
    ...base,
    turnId: z.string().nullable(),
    target: checkpointIdSchema,
    safetyCheckpoint: checkpointSchema,
    files: z.array(changedFileSchema),
  }),
  /** The session's worktree changed (merged, kept, discarded). */
  worktree: z.object({ ...base, worktree: sessionWorktreeSchema }),
} as const;

export type SessionEventType = keyof typeof sessionEventPayloadSchemas;
export type SessionEventPayload<T extends SessionEventType> = z.output<(typeof sessionEventPayloadSchemas)[T]>;
export type SessionEvent = { [T in SessionEventType]: { type: T; data: SessionEventPayload<T> } }[SessionEventType];

export const sessionEventTypes = Object.keys(sessionEventPayloadSchemas) as SessionEventType[];

/** Sent every `sseTiming.heartbeatMs` on every stream, without an `id:`; never stored. */
export const heartbeatPayloadSchema = z.object({ time: z.number() });

export function isSessionEventType(type: string): type is SessionEventType {
  return Object.hasOwn(sessionEventPayloadSchemas, type);
}
