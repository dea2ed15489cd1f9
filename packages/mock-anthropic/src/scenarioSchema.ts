import { z } from 'zod';
import { textPatternSchema } from './textPattern.ts';

const chunking = {
  /** Characters per delta event. */
  chunkSize: z.int().min(1).optional(),
  /** Pause before each delta event after the first. */
  chunkDelayMs: z.int().min(0).optional(),
};

export const blockScriptSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string(), ...chunking }),
  z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional(), ...chunking }),
  z.strictObject({
    type: z.literal('tool_use'),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
    /** Defaults to a fresh `toolu_…` id per reply, so repeated turns never reuse an id. */
    id: z.string().min(1).optional(),
  }),
]);

export type BlockScript = z.output<typeof blockScriptSchema>;

export const stopReasonSchema = z.enum(['end_turn', 'tool_use', 'max_tokens']);
export type StopReason = z.output<typeof stopReasonSchema>;

const usageSchema = z.strictObject({ input_tokens: z.int().min(0), output_tokens: z.int().min(0) });
export type ReplyUsage = z.output<typeof usageSchema>;

const errorSchema = z.strictObject({
  status: z.int().min(400).max(599),
  /** Anthropic error type; defaults from the status (429 → rate_limit_error, 529 → overloaded_error, …). */
  type: z.string().min(1).optional(),
  message: z.string().optional(),
  /** Sent as the `retry-after` header. */
  retryAfterSeconds: z.number().min(0).optional(),
  /** Sent as the `x-should-retry` header, which the Anthropic client obeys before its own status rules. */
  shouldRetry: z.boolean().optional(),
});

/** A scripted message: its content blocks, optionally cut off after a number of SSE events. */
export interface MessageReply {
  content: BlockScript[];
  stopReason?: StopReason;
  usage?: ReplyUsage;
  /** Close the connection after this many SSE events (a stream that breaks mid-way). */
  cutOffAfterEvents?: number;
}

export interface ErrorReply {
  error: z.output<typeof errorSchema>;
}

/** Accept the request and never answer; the server still closes promptly. */
export interface StallReply {
  stall: true;
}

export type MockReply = MessageReply | ErrorReply | StallReply;

export const mockReplySchema = z
  .strictObject({
    content: z.array(blockScriptSchema).optional(),
    stopReason: stopReasonSchema.optional(),
    usage: usageSchema.optional(),
    cutOffAfterEvents: z.int().min(0).optional(),
    error: errorSchema.optional(),
    stall: z.literal(true).optional(),
  })
  .superRefine((reply, context) => {
    const kinds = (['content', 'error', 'stall'] as const).filter((key) => reply[key] !== undefined);
    if (kinds.length !== 1) {
      context.addIssue({
        code: 'custom',
        message: `a reply needs exactly one of content, error or stall (got ${kinds.length === 0 ? 'none' : kinds.join(', ')})`,
      });
    }
    if (reply.content === undefined) {
      for (const key of ['stopReason', 'usage', 'cutOffAfterEvents'] as const) {
        if (reply[key] !== undefined)
          context.addIssue({ code: 'custom', path: [key], message: 'only allowed with content' });
      }
    }
  })
  .transform((reply): MockReply => {
    if (reply.error !== undefined) return { error: reply.error };
    if (reply.stall !== undefined) return { stall: true };
    const message: MessageReply = { content: reply.content ?? [] };
    if (reply.stopReason !== undefined) message.stopReason = reply.stopReason;
    if (reply.usage !== undefined) message.usage = reply.usage;
    if (reply.cutOffAfterEvents !== undefined) message.cutOffAfterEvents = reply.cutOffAfterEvents;
    return message;
  });

const toolResultMatchSchema = z.union([
  z.string().min(1),
  z.strictObject({
    name: z.string().min(1).optional(),
    isError: z.boolean().optional(),
    content: textPatternSchema.optional(),
    /** A partial match on the input of the tool_use this result answers (objects by subset, arrays by position). */
    input: z.record(z.string(), z.unknown()).optional(),
  }),
]);

export const ruleMatchSchema = z.strictObject({
  /**
   * The user's prompt for this turn. On its own it matches only the request that carries the prompt;
   * together with `toolResult` or `taskNotification` it scopes those follow-ups to the turn's prompt.
   */
  userText: textPatternSchema.optional(),
  /** The last user message holds a tool_result of this tool (or matching these fields). */
  toolResult: toolResultMatchSchema.optional(),
  /** The last user message is (true), is not (false), or is a matching background task notification. */
  taskNotification: z.union([z.boolean(), textPatternSchema]).optional(),
  /** 0-based index of the POST /v1/messages request. */
  requestIndex: z.int().min(0).optional(),
});

export type RuleMatch = z.output<typeof ruleMatchSchema>;
export type ToolResultMatch = z.output<typeof toolResultMatchSchema>;

export const scenarioRuleSchema = z.strictObject({
  /** Shown in diagnostics. */
  name: z.string().optional(),
  /** Absent or empty: matches every request. */
  match: ruleMatchSchema.optional(),
  /** How many requests this rule answers before it passes; unlimited when absent. */
  times: z.int().min(1).optional(),
  reply: mockReplySchema,
});

export type ScenarioRule = z.output<typeof scenarioRuleSchema>;
export type ScenarioRuleInput = z.input<typeof scenarioRuleSchema>;

export const scenarioSchema = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  /** Tried in order; the first that matches (and has `times` left) answers. */
  rules: z.array(scenarioRuleSchema),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
