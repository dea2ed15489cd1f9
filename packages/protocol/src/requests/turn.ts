import { z } from 'zod';
import { count, promptContent, requiredText, text } from './fields.ts';

export const goalActions = ['set', 'clear'] as const;
export type GoalAction = (typeof goalActions)[number];

export const execPayloadSchema = z.object({
  agentSessionId: requiredText('exec requires agentSessionId'),
  turnId: requiredText('exec requires turnId'),
  /** Legacy text; used when `content` yields no block. */
  prompt: text(),
  content: promptContent(),
  turnOrigin: text(),
  /** Sent to Claude as a leading text block. */
  hostContext: text(),
  /** Empty: the sidecar generates one. */
  promptCorrelationId: text(),
  goalOperationId: text(),
  goalRevision: count(),
  goalRepairEpoch: count(),
  /** Anything other than `set`/`clear` reads as absent, which makes the exec an ordinary turn. */
  goalAction: z.enum(goalActions).optional().catch(undefined),
});

export type ExecPayload = z.output<typeof execPayloadSchema>;

export type GoalCommand = { operationId: string; revision: number; repairEpoch: number; action: GoalAction };

/** The goal fields count only together: an operation id, a positive revision and a valid action. */
export function goalCommandOf(payload: ExecPayload): GoalCommand | undefined {
  const { goalOperationId, goalRevision, goalRepairEpoch, goalAction } = payload;
  if (goalOperationId === '' || !(goalRevision > 0) || goalAction === undefined) return undefined;
  return { operationId: goalOperationId, revision: goalRevision, repairEpoch: goalRepairEpoch, action: goalAction };
}

const budget = (message: string) => z.number({ error: message }).int({ error: message }).positive({ error: message });

export const guidePayloadSchema = z.object({
  agentSessionId: requiredText('guide requires agentSessionId'),
  prompt: text(),
  content: promptContent(),
  /** An addition: how long the guidance interrupt may take; absent means the sidecar's default (10 s). */
  interruptTimeoutMs: budget('guide interruptTimeoutMs must be a positive integer').optional(),
});

export type GuidePayload = z.output<typeof guidePayloadSchema>;

export const cancelPayloadSchema = z.object({
  agentSessionId: requiredText('cancel requires agentSessionId'),
  /** Empty: the active turn. */
  turnId: text(),
  interruptTimeoutMs: budget('cancel interruptTimeoutMs must be a positive integer'),
  drainTimeoutMs: budget('cancel drainTimeoutMs must be a positive integer'),
});

export type CancelPayload = z.output<typeof cancelPayloadSchema>;

export const stopTaskPayloadSchema = z
  .object({
    agentSessionId: requiredText('stop_task requires agentSessionId'),
    taskId: text(),
    toolCallId: text(),
    /** Legacy name of `toolCallId`. */
    parentToolUseId: text(),
  })
  .transform((payload) => ({ ...payload, toolCallId: payload.toolCallId || payload.parentToolUseId }));

export type StopTaskPayload = z.output<typeof stopTaskPayloadSchema>;
