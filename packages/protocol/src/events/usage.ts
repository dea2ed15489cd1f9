import { z } from 'zod';
import { openObject } from '../openObject.ts';

export const contextWindowSchema = openObject({
  usedTokens: z.number(),
  totalTokens: z.number().optional(),
  compactsAutomatically: z.boolean(),
});
export type ContextWindow = z.output<typeof contextWindowSchema>;

/**
 * One event, three shapes: streamed `usage` from a message delta; a `contextWindow` snapshot
 * after a result; or the result's `usage`/`modelUsage`/`totalCostUsd` when no snapshot exists.
 */
export const usageUpdatedSchema = openObject({
  turnId: z.string(),
  usage: z.record(z.string(), z.unknown()).optional(),
  contextWindow: contextWindowSchema.optional(),
  modelUsage: z.record(z.string(), z.unknown()).optional(),
  totalCostUsd: z.number().optional(),
});

export const usageEventSchemas = {
  usage_updated: usageUpdatedSchema,
} as const;
