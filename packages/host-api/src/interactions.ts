import { interactionOptionSchema } from '@outrigger/protocol/schemas';
import { z } from 'zod';
import { hostLimits } from './limits.ts';

/**
 * A request from the agent that needs a person: a tool approval, an AskUserQuestion form, or an
 * ExitPlanMode plan. Stored durably when the sidecar asks, listed until it is resolved, and answered
 * exactly once: `(session_id, turnId, requestId)` is its identity.
 */
export const interactionKinds = ['approval', 'question', 'plan'] as const;
export type InteractionKind = (typeof interactionKinds)[number];

/**
 * `answered`: an answer reached the agent. `superseded`: it can no longer be answered; `resolution`
 * says why (the turn was canceled or failed, the sidecar exited, the host restarted).
 */
export const interactionStatuses = ['pending', 'answered', 'superseded'] as const;
export type InteractionStatus = (typeof interactionStatuses)[number];

/** `host_stopped`: a clean stop (Ctrl-C, SIGTERM) ended it; `host_restarted`: the next start found it after a crash or a kill. */
export const interactionResolutions = [
  'answered',
  'turn_ended',
  'sidecar_exited',
  'host_stopped',
  'host_restarted',
] as const;

export const interactionAnswerSchema = z.object({
  action: z.string(),
  optionId: z.string(),
  payload: z.record(z.string(), z.unknown()),
});
export type InteractionAnswer = z.output<typeof interactionAnswerSchema>;

/**
 * What "Allow for this session" covers, as the agent process remembers it until the session ends: always
 * this exact request (the same tool with the same input), plus the rules Claude Code suggested for it
 * (`Bash(npm test:*)`, or the exact command as a rule) and the directories it suggested adding. Carried on
 * the `allow_always` option of an approval (`sessionGrant`), and in the decision once chosen.
 */
export const sessionGrantSchema = z.object({
  rules: z.array(z.string()),
  directories: z.array(z.string()),
});
export type SessionGrant = z.output<typeof sessionGrantSchema>;

/** An option of an interaction; `sessionGrant` on the `allow_always` option of an approval. */
export const interactionChoiceSchema = interactionOptionSchema.extend({ sessionGrant: sessionGrantSchema.optional() });

export const interactionSchema = z.object({
  requestId: z.string(),
  session_id: z.string(),
  turnId: z.string(),
  kind: z.enum(interactionKinds),
  toolName: z.string(),
  tool_use_id: z.string(),
  /**
   * The full tool input. For `question`, `input.questions[]` each carry an `id`
   * (`contract-question-…` when Claude Code sent none); answers are keyed by it.
   */
  input: z.record(z.string(), z.unknown()),
  options: z.array(interactionChoiceSchema),
  /** The subagent that asks, when it is not the main agent. */
  agentId: z.string().nullable(),
  /** The Agent tool call the asking subagent runs under. */
  parentToolUseId: z.string().nullable(),
  status: z.enum(interactionStatuses),
  answer: interactionAnswerSchema.nullable(),
  resolution: z.enum(interactionResolutions).nullable(),
  createdAt: z.number(),
  resolvedAt: z.number().nullable(),
});
export type Interaction = z.output<typeof interactionSchema>;

/**
 * The answer. Approvals: `{action:"allow", optionId:"allow"}` (once), `{action:"allow",
 * optionId:"allow_always"}` (for the session), `{action:"reject", optionId:"reject",
 * payload:{denyMessage?}}`. Questions: `{action:"allow", optionId:"allow", payload:{answersByQuestionId:
 * {[id]: string | string[]}, annotations?: {[id]: {notes?}}}}`. Plans: the chosen option's id
 * (`default`, `acceptEdits`, `auto`, `bypassPermissions`) or `{action:"reject", optionId:"plan"}`.
 * docs/host-api.md has the full table.
 */
export const answerInteractionBodySchema = z.strictObject({
  action: z.string().trim().min(1).max(64),
  optionId: z.string().trim().max(64).default(''),
  payload: z
    .record(z.string(), z.unknown())
    .refine((payload) => JSON.stringify(payload).length <= hostLimits.maxAnswerPayloadBytes, {
      error: `the payload may have at most ${hostLimits.maxAnswerPayloadBytes} bytes`,
    })
    .default({}),
});
export type AnswerInteractionBody = z.output<typeof answerInteractionBodySchema>;

export const answerInteractionResponseSchema = z.object({
  /** The same answer was already recorded; nothing was sent again. */
  replayed: z.boolean(),
  interaction: interactionSchema,
});
export type AnswerInteractionResponse = z.output<typeof answerInteractionResponseSchema>;

export const interactionsQuerySchema = z.strictObject({
  status: z.enum(interactionStatuses).optional(),
});

export const interactionListSchema = z.object({
  interactions: z.array(interactionSchema),
  /** The host stream's seq at which this list is consistent (its `permission_*` events follow it). */
  lastSeq: z.number().int().nonnegative(),
});
export type InteractionList = z.output<typeof interactionListSchema>;
