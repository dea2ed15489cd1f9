import { z } from 'zod';
import { openObject } from '../openObject.ts';
import { goalActions } from '../requests/turn.ts';

const goalCommand = {
  turnId: z.string(),
  operationId: z.string(),
  revision: z.number(),
  action: z.enum(goalActions),
};

export const goalCommandStartedSchema = openObject({
  ...goalCommand,
  providerTurnId: z.string().optional(),
  repairEpoch: z.number(),
});

/** A queued `set` dropped because a newer `clear` arrived. */
export const goalCommandSupersededSchema = openObject({
  ...goalCommand,
  supersededByRevision: z.number(),
});

export const goalCommandCanceledSchema = openObject({
  ...goalCommand,
  repairEpoch: z.number(),
  reason: z.literal('cancel_requested'),
});

export const goalStatuses = ['active', 'complete', 'blocked'] as const;
export type GoalStatus = (typeof goalStatuses)[number];

/** Goal details vary by source, hence an open index. */
export const goalSchema = z.looseObject({
  objective: z.string(),
  status: z.enum(goalStatuses),
  iterations: z.number().optional(),
  reason: z.string().optional(),
  tokens: z.unknown().optional(),
  sentinel: z.unknown().optional(),
});
export type Goal = z.output<typeof goalSchema>;

export const goalObservedSchema = openObject({
  /** The last turn of the session. */
  turnId: z.string(),
  providerTurnId: z.string().optional(),
  action: z.enum(goalActions).optional(),
  source: z.enum(['active_goal', 'goal_status']),
  updateType: z.enum(['thread_goal_update', 'thread_goal_completed', 'thread_goal_cleared']),
  goal: goalSchema.optional(),
});

export const goalEventSchemas = {
  goal_command_started: goalCommandStartedSchema,
  goal_command_superseded: goalCommandSupersededSchema,
  goal_command_canceled: goalCommandCanceledSchema,
  goal_observed: goalObservedSchema,
} as const;
