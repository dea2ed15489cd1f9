import { z } from 'zod';
import { openObject } from '../openObject.ts';
import { errorPayloadSchema } from '../results.ts';

export const configOptionValueSchema = openObject({
  value: z.string(),
  name: z.string(),
  description: z.string().optional(),
});

export const configOptionSchema = openObject({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  category: z.string().optional(),
  type: z.string(),
  /** The user's selection; may be "default". */
  currentValue: z.string(),
  /** The model the SDK reports it is actually using. */
  effectiveValue: z.string().optional(),
  options: z.array(configOptionValueSchema),
});
export type ConfigOption = z.output<typeof configOptionSchema>;

/** What a host stores to resume the session later; sent back in `start.resumeCursor`. */
export const resumeCursorSchema = openObject({
  kind: z.literal('claude-agent-sdk'),
  version: z.literal(1),
  resume: z.string(),
  /** The last root assistant message uuid. */
  resumeSessionAt: z.string().optional(),
  /** Number of settled turns. */
  turnCount: z.number(),
});
export type ResumeCursor = z.output<typeof resumeCursorSchema>;

export const sessionSnapshotSchema = openObject({
  providerSessionId: z.string(),
  model: z.string().optional(),
  configOptions: z.array(configOptionSchema).optional(),
  resumeCursor: resumeCursorSchema,
});
export type SessionSnapshot = z.output<typeof sessionSnapshotSchema>;

export const sessionTitleUpdatedSchema = openObject({
  providerSessionId: z.string(),
  title: z.string(),
});

export const slashCommandSchema = openObject({
  name: z.string(),
  description: z.string(),
  input: openObject({ hint: z.string() }).optional(),
});
export type SlashCommand = z.output<typeof slashCommandSchema>;

export const commandsUpdatedSchema = openObject({
  providerSessionId: z.string(),
  commands: z.array(slashCommandSchema),
});

export const speeds = ['fast', 'standard'] as const;
export type Speed = (typeof speeds)[number];

/** The SDK's `fast_mode_state`: `on` runs fast, `off` standard, `cooldown` is fast mode paused after a rate limit. */
export const fastModeStates = ['off', 'cooldown', 'on'] as const;
export type FastModeState = (typeof fastModeStates)[number];

export const speedUpdatedSchema = openObject({
  /**
   * The SDK's fast-mode state, passed through: one of `fastModeStates`, or a state a newer Claude Code
   * adds, which must not make the event invalid.
   */
  state: z
    .union([z.enum(fastModeStates), z.string()])
    .describe('off (speed standard), on (speed fast) or cooldown (no speed); a newer Claude Code may add states.'),
  /** `fast` for `on`, `standard` for `off`, absent otherwise. */
  speed: z.enum(speeds).optional(),
});

/** A diagnostic copy of selected SDK messages; never prompt or tool content. */
export const sdkLifecycleObservedSchema = openObject({
  sdkMessageType: z.string(),
  sdkMessageSubtype: z.string().optional(),
  taskNotification: z.unknown().optional(),
  rootContinuationCandidate: z.unknown().optional(),
  apiRetry: z.unknown().optional(),
  activeTurnIdBefore: z.string().optional(),
  parentToolUseId: z.string().optional(),
  taskId: z.string().optional(),
  agentId: z.string().optional(),
  toolUseId: z.string().optional(),
  status: z.string().optional(),
  state: z.string().optional(),
  sdkMessageOrigin: z.unknown().optional(),
  sdkResultIsError: z.boolean().optional(),
  sdkApiErrorStatus: z.number().nullable().optional(),
  sdkConnectionError: z.boolean().optional(),
  sdkRetryAttempt: z.number().optional(),
  sdkMaxRetries: z.number().optional(),
  sdkRetryDelayMs: z.number().optional(),
  sdkAssistantError: z.string().optional(),
});

export const sessionEventSchemas = {
  session_started: sessionSnapshotSchema,
  session_state: sessionSnapshotSchema,
  session_title_updated: sessionTitleUpdatedSchema,
  commands_updated: commandsUpdatedSchema,
  speed_updated: speedUpdatedSchema,
  sdk_lifecycle_observed: sdkLifecycleObservedSchema,
  /** Uncorrelated: parse failures without a usable id, and background failures. */
  error: errorPayloadSchema,
} as const;
