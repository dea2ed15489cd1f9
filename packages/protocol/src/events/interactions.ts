import { z } from 'zod';
import { openObject } from '../openObject.ts';

const jsonRecord = z.record(z.string(), z.unknown());

export const interactionOptionSchema = openObject({
  /** e.g. `allow_always`, `allow_once`, `reject_once`. */
  kind: z.string(),
  name: z.string(),
  optionId: z.string(),
});
export type InteractionOption = z.output<typeof interactionOptionSchema>;

export const interactionRequestedSchema = openObject({
  turnId: z.string(),
  requestId: z.string(),
  /** The SDK tool use id, or `requestId` when the SDK gave none. */
  toolCallId: z.string(),
  toolName: z.string(),
  agentId: z.string().optional(),
  input: jsonRecord,
  options: z.array(interactionOptionSchema),
  toolCall: openObject({
    toolCallId: z.string(),
    name: z.string(),
    title: z.string(),
    toolName: z.string(),
    input: jsonRecord,
  }),
});
export type InteractionRequested = z.output<typeof interactionRequestedSchema>;

export const interactionResolvedSchema = openObject({
  turnId: z.string(),
  requestId: z.string(),
  action: z.string(),
  optionId: z.string(),
  payload: jsonRecord,
});

export const interactionEventSchemas = {
  approval_requested: interactionRequestedSchema,
  /** AskUserQuestion and ExitPlanMode. */
  user_input_requested: interactionRequestedSchema,
  approval_resolved: interactionResolvedSchema,
  user_input_resolved: interactionResolvedSchema,
} as const;
