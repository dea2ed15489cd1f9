import { z } from 'zod';
import { openObject } from '../openObject.ts';

export const toolCallTypes = [
  'interactive',
  'subagent',
  'command',
  'file_change',
  'web_search',
  'mcp_tool',
  'tool',
] as const;
export type ToolCallType = (typeof toolCallTypes)[number];

export const toolCallStatuses = ['streaming', 'completed', 'failed'] as const;
export type ToolCallStatus = (typeof toolCallStatuses)[number];

const jsonRecord = z.record(z.string(), z.unknown());

/** Carries further subagent and background-process details, hence an open index. */
export const toolCallMetadataSchema = z.looseObject({
  adapter: z.literal('claude-agent-sdk'),
  toolName: z.string(),
  parentToolUseId: z.string().optional(),
  steps: z.unknown().optional(),
  backgroundProcess: openObject({ taskId: z.string().optional(), status: z.string() }).optional(),
});

export const toolCallSchema = openObject({
  turnId: z.string(),
  toolCallId: z.string(),
  /** Same value as `toolCallId`, under the name older hosts read. */
  callId: z.string(),
  toolName: z.string(),
  callType: z.enum(toolCallTypes),
  name: z.string(),
  status: z.enum(toolCallStatuses),
  /** The tool input plus `toolName`. */
  input: jsonRecord,
  locations: z.array(openObject({ path: z.string() })),
  metadata: toolCallMetadataSchema,
  /** `file_change` and `tool_result` blocks. */
  content: z.array(z.looseObject({ type: z.string() })).optional(),
  output: z.unknown().optional(),
  error: z.string().optional(),
});
export type ToolCall = z.output<typeof toolCallSchema>;

export const delegatedTaskMetadataSchema = openObject({
  adapter: z.literal('claude-agent-sdk'),
  parentToolUseId: z.string(),
  async: z.literal(true),
  subagentAsync: z.literal(true),
  taskStatus: z.string(),
  subagentStatus: z.string(),
  taskId: z.string().optional(),
  agentId: z.string().optional(),
  subagentAgentId: z.string().optional(),
  outputFile: z.string().optional(),
  subagentOutputFile: z.string().optional(),
});

/** A delegated (Agent tool) task, reported under the tool call that launched it. */
export const delegatedTaskSchema = openObject({
  turnId: z.string(),
  parentToolUseId: z.string(),
  toolCallId: z.string(),
  callId: z.string(),
  taskId: z.string().optional(),
  agentId: z.string().optional(),
  outputFile: z.string().optional(),
  status: z.string(),
  description: z.string().optional(),
  summary: z.string().optional(),
  lastToolName: z.string().optional(),
  usage: z.unknown().optional(),
  input: jsonRecord,
  metadata: delegatedTaskMetadataSchema,
});
export type DelegatedTask = z.output<typeof delegatedTaskSchema>;

export const planEntrySchema = openObject({
  id: z.string(),
  content: z.string(),
  status: z.string(),
  description: z.string().optional(),
});
export type PlanEntry = z.output<typeof planEntrySchema>;

/** Always the full plan, never a diff. */
export const planUpdatedSchema = openObject({
  turnId: z.string(),
  entries: z.array(planEntrySchema),
});

export const toolEventSchemas = {
  tool_started: toolCallSchema,
  tool_updated: toolCallSchema,
  tool_completed: toolCallSchema,
  tool_failed: toolCallSchema,
  task_started: delegatedTaskSchema,
  task_progress: delegatedTaskSchema,
  task_completed: delegatedTaskSchema,
  task_result_updated: delegatedTaskSchema,
  plan_updated: planUpdatedSchema,
} as const;
