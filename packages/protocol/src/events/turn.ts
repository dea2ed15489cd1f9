import { z } from 'zod';
import { openObject } from '../openObject.ts';

/** Present when the turn was started by a Goal command. */
const goalProvenance = {
  turnOrigin: z.string().optional(),
  sourceGoalOperationId: z.string().optional(),
  sourceGoalRevision: z.number().optional(),
  sourceGoalRepairEpoch: z.number().optional(),
};

export const providerTurnIdentityResolvedSchema = openObject({
  turnId: z.string(),
  /** Claude's root user-message uuid; never merely the outbound correlation id. */
  providerTurnId: z.string(),
  ...goalProvenance,
});

export const providerTurnCheckpointSchema = openObject({
  turnId: z.string(),
  providerTurnId: z.string(),
  providerCheckpointMessageId: z.string(),
});

/** Only synthetic continuation turns and turns with an origin get one; hosts start ordinary turns themselves. */
export const turnStartedSchema = openObject({
  turnId: z.string(),
  synthetic: z.boolean().optional(),
  ...goalProvenance,
});

export const turnStopReasons = [
  'end_turn',
  'background_agent_idle',
  'background_agent',
  'background_agent_continuation_timeout',
] as const;
export type TurnStopReason = (typeof turnStopReasons)[number];

export const turnCompletedSchema = openObject({
  turnId: z.string(),
  providerTurnId: z.string().optional(),
  stopReason: z.enum(turnStopReasons),
  syntheticTimeout: z.boolean().optional(),
});

export const turnFailedSchema = openObject({
  turnId: z.string(),
  providerTurnId: z.string().optional(),
  error: z.string(),
  code: z.string().optional(),
  apiErrorStatus: z.number().nullable().optional(),
  /** `rejected`: the provider refused the turn before accepting it (e.g. authentication). */
  dispatchDisposition: z.literal('rejected').optional(),
});

export const turnCanceledSchema = openObject({
  turnId: z.string(),
  providerTurnId: z.string().optional(),
  error: z.string().optional(),
});

export const continuationDelayedSchema = openObject({
  turnId: z.string(),
  waitedMs: z.number(),
});

export const guidanceInterruptedSchema = openObject({
  turnId: z.string(),
});

/**
 * An addition to protocol 10: the turn's API stream has been open and silent for `silentMs` (first after
 * 15 s, then every 15 s). Not a terminal: at the sidecar's stall budget the turn ends with one `turn_failed`
 * whose `code` is `stream_stalled`.
 */
export const turnStalledSchema = openObject({
  turnId: z.string(),
  silentMs: z.number(),
});

/** The `code` of the `turn_failed` that ends a turn whose API stream stayed silent past the stall budget. */
export const STREAM_STALLED_CODE = 'stream_stalled';

/**
 * The `code` of the `turn_failed` that ends the turn running when its Claude Code child exited (killed,
 * crashed): a host knows the child is gone and may reap what it ran.
 */
export const CLAUDE_CODE_EXITED_CODE = 'claude_code_exited';

export const turnEventSchemas = {
  provider_turn_identity_resolved: providerTurnIdentityResolvedSchema,
  provider_turn_checkpoint: providerTurnCheckpointSchema,
  turn_started: turnStartedSchema,
  turn_completed: turnCompletedSchema,
  turn_failed: turnFailedSchema,
  turn_canceled: turnCanceledSchema,
  continuation_delayed: continuationDelayedSchema,
  guidance_interrupted: guidanceInterruptedSchema,
  turn_stalled: turnStalledSchema,
} as const;

/** Exactly one of these ends a turn. */
export const turnTerminalEventTypes = ['turn_completed', 'turn_failed', 'turn_canceled'] as const;
export type TurnTerminalEventType = (typeof turnTerminalEventTypes)[number];

const turnTerminalEventTypeSet: ReadonlySet<string> = new Set(turnTerminalEventTypes);

export function isTurnTerminalEventType(type: string): type is TurnTerminalEventType {
  return turnTerminalEventTypeSet.has(type);
}
