import { z } from 'zod';
import { openObject } from './openObject.ts';
import type { RequestType } from './requestTypes.ts';

/*
 * `ok` payloads. Loose objects: a newer sidecar may add fields, and an older host must not break.
 * exec, guide, apply_settings and close answer `ok` with no payload.
 */

export const startResultSchema = openObject({
  /** After any resume-cursor override and after the SDK may have changed it. */
  providerSessionId: z.string(),
});
export type StartResult = z.output<typeof startResultSchema>;

export const cancelDispositions = [
  'pre_accept',
  'provider_active',
  'provider_state_lost',
  'absent',
  'mismatch',
] as const;
export type CancelDisposition = (typeof cancelDispositions)[number];

/** The provider-acceptance phases of a turn, in order, plus the two cancel-only phases. */
export const providerTurnPhases = [
  'queued',
  'dispatched',
  'provider_observed',
  'resolving_identity',
  'identity_resolved',
  'streaming',
  'waiting_approval',
  'waiting_input',
  'running_tool',
  'terminal',
] as const;
export type ProviderTurnPhase = (typeof providerTurnPhases)[number];

export const dispatchPhases = [...providerTurnPhases, 'pending_goal', 'unknown'] as const;
export type DispatchPhase = (typeof dispatchPhases)[number];

export const cancelResultSchema = openObject({
  canceled: z.boolean(),
  disposition: z.enum(cancelDispositions),
  turnId: z.string(),
  /** Non-empty exactly when the turn had a bound provider identity; "" otherwise. */
  providerTurnId: z.string(),
  dispatchPhase: z.enum(dispatchPhases),
  /**
   * An addition: true when this cancel interrupted and closed the session's Query, so its Claude Code
   * exits (what it ran may need reaping); false when Claude Code goes on serving the session (a prompt
   * withdrawn from its queue, a turn it never received, nothing canceled). Absent from the original.
   */
  queryRetired: z.boolean().optional(),
});
export type CancelResult = z.output<typeof cancelResultSchema>;

export const stopTaskResultSchema = openObject({ stopped: z.boolean() });
export type StopTaskResult = z.output<typeof stopTaskResultSchema>;

export const interactiveDispositions = ['answered', 'superseded', 'conflict', 'pending', 'unknown'] as const;
export type InteractiveDisposition = (typeof interactiveDispositions)[number];

/** Answer to both `submit_interactive` and `interactive_disposition`. */
export const interactiveResultSchema = openObject({
  disposition: z.enum(interactiveDispositions),
  replayed: z.boolean().optional(),
});
export type InteractiveResult = z.output<typeof interactiveResultSchema>;

export const inspectForkCheckpointsResultSchema = openObject({ providerTurnIds: z.array(z.string()) });
export type InspectForkCheckpointsResult = z.output<typeof inspectForkCheckpointsResultSchema>;

export const recoverTurnBindingResultSchema = openObject({
  providerSessionId: z.string(),
  providerTurnId: z.string(),
  providerCheckpointMessageId: z.string(),
});
export type RecoverTurnBindingResult = z.output<typeof recoverTurnBindingResultSchema>;

export const providerTurnBindingSchema = openObject({
  providerTurnId: z.string(),
  checkpointMessageId: z.string(),
});
export type ProviderTurnBinding = z.output<typeof providerTurnBindingSchema>;

export const FORK_RECEIPT_PREFIX = 'claude-sdk-fork-v3:';

export const forkSessionResultSchema = openObject({
  /** The child session Claude allocated. */
  providerSessionId: z.string(),
  targetProviderTurnBindings: z.array(providerTurnBindingSchema),
  stateBindingMode: z.literal('provider_owned'),
  /** `claude-sdk-fork-v3:` + sha256 hex. */
  stateBindingReceipt: z.string(),
  deliveryDisposition: z.literal('accepted'),
});
export type ForkSessionResult = z.output<typeof forkSessionResultSchema>;

export const requestResultSchemas = {
  start: startResultSchema,
  exec: z.undefined(),
  guide: z.undefined(),
  cancel: cancelResultSchema,
  stop_task: stopTaskResultSchema,
  submit_interactive: interactiveResultSchema,
  interactive_disposition: interactiveResultSchema,
  apply_settings: z.undefined(),
  inspect_fork_checkpoints: inspectForkCheckpointsResultSchema,
  recover_turn_binding: recoverTurnBindingResultSchema,
  fork_session: forkSessionResultSchema,
  close: z.undefined(),
} as const satisfies Record<RequestType, z.ZodType>;

export type RequestResult<T extends RequestType> = z.output<(typeof requestResultSchemas)[T]>;

/**
 * Failure stages of `fork_session`, `consumption` for a cancel whose drain budget ran out, and `model` for a
 * `start` or `apply_settings` whose model Claude Code rejected.
 */
export const errorStages = ['source_lookup', 'provider_fork', 'child_verification', 'consumption', 'model'] as const;
export type ErrorStage = (typeof errorStages)[number];

/** `not_started`: safe to retry. `unknown`: the mutation may have happened; never replay. */
export const deliveryDispositions = ['not_started', 'unknown'] as const;
export type DeliveryDisposition = (typeof deliveryDispositions)[number];

/** Payload of an `error` response, and of an uncorrelated `error` event. */
export const errorPayloadSchema = openObject({
  error: z.string(),
  deliveryDisposition: z.string().optional(),
  stage: z.string().optional(),
});
export type ErrorPayload = z.output<typeof errorPayloadSchema>;
