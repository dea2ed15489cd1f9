import { z } from 'zod';
import { openObject } from '../openObject.ts';

/*
 * Root-turn output only. `messageId` is `claude-sdk:<assistant|thinking>:<base>:<live|fallback>:<seq>`.
 * `providerTurnId` appears only in test-driver mode.
 */

export const outputDeltaSchema = openObject({
  turnId: z.string(),
  messageId: z.string(),
  /** This delta. */
  content: z.string(),
  /** Everything so far, so a late subscriber can render without the earlier deltas. */
  snapshot: z.string(),
  providerTurnId: z.string().optional(),
});

export const outputCompletedSchema = openObject({
  turnId: z.string(),
  messageId: z.string(),
  /** The full text. */
  content: z.string(),
  providerTurnId: z.string().optional(),
});

export const assistantEventSchemas = {
  assistant_delta: outputDeltaSchema,
  thinking_delta: outputDeltaSchema,
  assistant_completed: outputCompletedSchema,
  thinking_completed: outputCompletedSchema,
  /** The assistant message carried an SDK error. */
  assistant_failed: outputCompletedSchema,
} as const;
