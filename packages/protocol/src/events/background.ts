import { z } from 'zod';
import { openObject } from '../openObject.ts';

/** Counts only, so diagnostics can spot missing task edges without task descriptions or prompts. */
export const backgroundTasksSchema = openObject({
  turnId: z.string(),
  runningCount: z.number(),
  backgroundTasksObservedCount: z.number(),
  backgroundTasksRunningCount: z.number(),
  backgroundTasksNoLongerLiveCount: z.number(),
  delegatedTasksKnownCount: z.number(),
  delegatedTasksRunningCount: z.number(),
  delegatedTasksCompletedCount: z.number(),
  delegatedTasksFailedCount: z.number(),
  delegatedTasksStoppedCount: z.number(),
});

export const backgroundEventSchemas = {
  /** The full set of running background tasks changed; not a turn terminal. */
  background_tasks_changed: backgroundTasksSchema,
  /** The set stayed empty for the quiescence grace. */
  background_tasks_quiesced: backgroundTasksSchema,
} as const;
