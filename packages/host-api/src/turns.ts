import { cancelDispositions } from '@outrigger/protocol/schemas';
import { z } from 'zod';
import { hostLimits, imageMediaTypes } from './limits.ts';
import { messageViewSchema } from './messages.ts';

/**
 * `queued`: accepted, waiting for the session to be free. `running`: handed to the sidecar (a user
 * turn is `accepted` once Claude bound it: `providerTurnId` is set). The last four are terminal;
 * `interrupted` is a turn the host found running when it started again (it crashed or was killed).
 */
export const turnStatuses = ['queued', 'running', 'completed', 'failed', 'canceled', 'interrupted'] as const;
export type TurnStatus = (typeof turnStatuses)[number];

export const terminalTurnStatuses = ['completed', 'failed', 'canceled', 'interrupted'] as const;
export type TurnOutcome = (typeof terminalTurnStatuses)[number];

/** `user`: a prompt. `synthetic`: a continuation Claude Code started itself (background work reporting back). */
export const turnKinds = ['user', 'synthetic'] as const;

export const turnErrorSchema = z.object({
  message: z.string(),
  /** e.g. `authentication_failed`, `stream_stalled`, `sidecar_exited`, `host_restarted`. */
  code: z.string().nullable(),
  apiErrorStatus: z.number().nullable(),
});
export type TurnError = z.output<typeof turnErrorSchema>;

export const turnUsageSchema = z.object({
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  cacheReadInputTokens: z.number().nullable(),
  cacheCreationInputTokens: z.number().nullable(),
  /** Unknown is null, never 0. */
  costUsd: z.number().nullable(),
});
export type TurnUsage = z.output<typeof turnUsageSchema>;

export const turnViewSchema = z.object({
  id: z.string(),
  session_id: z.string(),
  kind: z.enum(turnKinds),
  status: z.enum(turnStatuses),
  /** The prompt text (user turns); null for synthetic turns. */
  prompt: z.string().nullable(),
  clientMessageId: z.string().nullable(),
  /** Claude's root user-message uuid, once the turn was accepted. */
  providerTurnId: z.string().nullable(),
  /** `end_turn`, `background_agent_idle`, … for completed turns. */
  stopReason: z.string().nullable(),
  error: turnErrorSchema.nullable(),
  /** How a canceled turn was canceled (`pre_accept`, `provider_active`, …). */
  cancelDisposition: z.enum(cancelDispositions).nullable(),
  usage: turnUsageSchema.nullable(),
  createdAt: z.number(),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
});
export type TurnView = z.output<typeof turnViewSchema>;

export const queuedPromptSchema = z.object({
  turnId: z.string(),
  prompt: z.string(),
  clientMessageId: z.string().nullable(),
  imageCount: z.number().int().nonnegative(),
  createdAt: z.number(),
  /**
   * The user's Stop paused it: it does not start by itself. It starts with `run` (Run now) or `resumeQueue`;
   * `editQueuedTurn` and `cancelTurn` (Remove) work on it as on any queued prompt.
   */
  paused: z.boolean(),
});
export type QueuedPrompt = z.output<typeof queuedPromptSchema>;

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodedBytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

export const imageInputBlockSchema = z.strictObject({
  type: z.literal('image'),
  source: z.strictObject({
    type: z.literal('base64'),
    media_type: z.enum(imageMediaTypes),
    data: z
      .string()
      .min(1)
      .refine((data) => data.length % 4 === 0 && base64.test(data), { error: 'must be base64' })
      .refine((data) => decodedBytes(data) <= hostLimits.maxImageBytes, {
        error: `an image may have at most ${hostLimits.maxImageBytes} bytes`,
      }),
  }),
});

export const textInputBlockSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string().max(hostLimits.maxPromptChars),
});

export const turnModes = ['queue', 'steer'] as const;

export const postTurnBodySchema = z
  .strictObject({
    prompt: z.string().max(hostLimits.maxPromptChars),
    /** Extra blocks sent with the prompt, in order after it: text and images (png, jpeg, gif, webp). */
    content: z
      .array(z.discriminatedUnion('type', [textInputBlockSchema, imageInputBlockSchema]))
      .max(hostLimits.maxImagesPerTurn + 8)
      .optional(),
    /** A retry with the same id answers the same turn and starts nothing. */
    clientMessageId: z.string().trim().min(1).max(hostLimits.maxClientMessageIdChars).optional(),
    /** While a turn runs: `queue` (default) waits for it; `steer` sends the prompt into it (`guide`). */
    mode: z.enum(turnModes).optional(),
  })
  .refine((body) => body.prompt.trim() !== '' || (body.content ?? []).length > 0, {
    error: 'a turn needs a prompt or content',
    path: ['prompt'],
  })
  .refine(
    (body) => (body.content ?? []).filter((block) => block.type === 'image').length <= hostLimits.maxImagesPerTurn,
    {
      error: `at most ${hostLimits.maxImagesPerTurn} images per turn`,
      path: ['content'],
    },
  );
export type PostTurnBody = z.output<typeof postTurnBodySchema>;

export const postTurnResponseSchema = z.object({
  /** The new turn; for a steer, the running turn it went into. */
  turnId: z.string(),
  /** The prompt waits behind a running turn. */
  queued: z.boolean(),
  /** The prompt went into the running turn (`mode:"steer"`). */
  steered: z.boolean(),
  /** An earlier POST with the same `clientMessageId` was answered with this turn. */
  replayed: z.boolean(),
});
export type PostTurnResponse = z.output<typeof postTurnResponseSchema>;

const budget = z.number().int().min(1).max(hostLimits.maxCancelBudgetMs);

export const cancelTurnBodySchema = z.strictObject({
  /** Default 10 000. */
  interruptTimeoutMs: budget.optional(),
  /** Default 8 000. */
  drainTimeoutMs: budget.optional(),
});
export type CancelTurnBody = z.output<typeof cancelTurnBodySchema>;

export const cancelDefaults = { interruptTimeoutMs: 10_000, drainTimeoutMs: 8_000 } as const;

export const cancelTurnResponseSchema = z.object({
  turnId: z.string(),
  canceled: z.boolean(),
  disposition: z.enum(cancelDispositions),
  providerTurnId: z.string(),
});
export type CancelTurnResponse = z.output<typeof cancelTurnResponseSchema>;

/** Replaces the text of a queued prompt that has not started (its images stay); its place and id stay too. */
export const editQueuedTurnBodySchema = z.strictObject({
  prompt: z.string().max(hostLimits.maxPromptChars),
});
export type EditQueuedTurnBody = z.output<typeof editQueuedTurnBodySchema>;

/** `run` (Run now) and `resumeQueue` take no fields; an empty body is fine. */
export const emptyBodySchema = z.strictObject({});

export const runQueuedTurnResponseSchema = z.object({
  turnId: z.string(),
  /** false: it was already running (a retry of a run that started it); nothing started twice. */
  started: z.boolean(),
});
export type RunQueuedTurnResponse = z.output<typeof runQueuedTurnResponseSchema>;

export const resumeQueueResponseSchema = z.object({
  /** The prompt that started now; null when a turn still runs (the queue goes on after it) or none waited. */
  startedTurnId: z.string().nullable(),
  /** The queue after the resume: nothing in it is paused. */
  queuedPrompts: z.array(queuedPromptSchema),
});
export type ResumeQueueResponse = z.output<typeof resumeQueueResponseSchema>;

/** A page of the transcript, oldest first within the page, and the turns its rows belong to. */
export const messagesPageSchema = z.object({
  messages: z.array(messageViewSchema),
  turns: z.array(turnViewSchema),
  /** Older rows exist; ask again with `before` = this page's first `position`. */
  hasMore: z.boolean(),
});
export type MessagesPage = z.output<typeof messagesPageSchema>;
