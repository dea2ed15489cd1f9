import { z } from 'zod';
import { openObject } from '../openObject.ts';

const compactProgressSchema = openObject({
  turnId: z.string(),
  /** Display text, e.g. "Compacting..." or "Compacting completed.". */
  content: z.string(),
});

export const compactFailedSchema = openObject({
  turnId: z.string(),
  reason: z.string().optional(),
  content: z.string(),
});

export const compactionEventSchemas = {
  compact_started: compactProgressSchema,
  compact_completed: compactProgressSchema,
  compact_failed: compactFailedSchema,
} as const;
