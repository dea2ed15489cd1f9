import { randomUUID } from 'node:crypto';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';

/** Minimal SDK messages with the fields the runtime reads, for scripting a FakeClaudeQuery. */

const SESSION = 'fake-session';

function message(fields: Record<string, unknown>): SDKMessage {
  return { session_id: SESSION, ...fields } as unknown as SDKMessage;
}

export function promptEcho(uuid: string, text = 'prompt'): SDKMessage {
  return message({
    type: 'user',
    uuid,
    isReplay: true,
    parent_tool_use_id: null,
    message: { role: 'user', content: [{ type: 'text', text }] },
  });
}

export function queuedCommandEcho(uuid: string, sourceUuid: string): SDKMessage {
  return message({
    type: 'attachment',
    uuid,
    parent_tool_use_id: null,
    attachment: { type: 'queued_command', prompt: 'steer', source_uuid: sourceUuid, commandMode: 'prompt' },
  });
}

export function toolResultUser(uuid: string, toolUseId = 'toolu_1'): SDKMessage {
  return message({
    type: 'user',
    uuid,
    parent_tool_use_id: null,
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'ok' }] },
  });
}

export function taskNotificationUser(uuid: string): SDKMessage {
  return message({
    type: 'user',
    uuid,
    parent_tool_use_id: null,
    message: { role: 'user', content: '<task-notification><status>completed</status></task-notification>' },
  });
}

export function syntheticUser(uuid: string): SDKMessage {
  return message({
    type: 'user',
    uuid,
    isSynthetic: true,
    parent_tool_use_id: null,
    message: { role: 'user', content: [{ type: 'text', text: 'synthetic' }] },
  });
}

export function textDelta(text: string): SDKMessage {
  return message({
    type: 'stream_event',
    uuid: randomUUID(),
    parent_tool_use_id: null,
    event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
  });
}

export function streamEvent(event: Record<string, unknown>): SDKMessage {
  return message({ type: 'stream_event', uuid: randomUUID(), parent_tool_use_id: null, event });
}

export function assistantText(text: string, fields: Record<string, unknown> = {}): SDKMessage {
  return message({
    type: 'assistant',
    uuid: randomUUID(),
    parent_tool_use_id: null,
    message: {
      id: 'msg_1',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text }],
      stop_reason: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
    ...fields,
  });
}

export function successResult(fields: Record<string, unknown> = {}): SDKMessage {
  return message({
    type: 'result',
    subtype: 'success',
    uuid: randomUUID(),
    is_error: false,
    result: 'done',
    duration_ms: 1,
    duration_api_ms: 1,
    num_turns: 1,
    stop_reason: 'end_turn',
    total_cost_usd: 0,
    usage: { input_tokens: 1, output_tokens: 1 },
    modelUsage: {},
    permission_denials: [],
    ...fields,
  });
}

export function errorResult(errors: string[], fields: Record<string, unknown> = {}): SDKMessage {
  return successResult({ subtype: 'error_during_execution', is_error: true, errors, ...fields });
}

export function apiRetry(errorStatus: number | null, error = 'authentication_failed'): SDKMessage {
  return message({
    type: 'system',
    subtype: 'api_retry',
    uuid: randomUUID(),
    attempt: 1,
    max_retries: 10,
    retry_delay_ms: 500,
    error_status: errorStatus,
    error,
  });
}

export function sessionIdle(): SDKMessage {
  return message({ type: 'system', subtype: 'session_state_changed', state: 'idle', uuid: randomUUID() });
}

// --- tool calls and background work (shapes from claude-code-offline.md §5) -----------------------------

/** A root assistant message that calls one tool. */
export function toolUse(id: string, name: string, input: Record<string, unknown>): SDKMessage {
  return message({
    type: 'assistant',
    uuid: randomUUID(),
    parent_tool_use_id: null,
    message: {
      id: `msg-${id}`,
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'tool_use', id, name, input }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  });
}

/** `system/task_started`: the tool call `toolUseId` launched background task `taskId`. */
export function taskStarted(taskId: string, toolUseId: string, taskType: string): SDKMessage {
  return message({
    type: 'system',
    subtype: 'task_started',
    uuid: randomUUID(),
    task_id: taskId,
    tool_use_id: toolUseId,
    task_type: taskType,
    description: 'background work',
  });
}

/** `system/task_updated`: background task `taskId` was killed. */
export function taskUpdated(taskId: string): SDKMessage {
  return message({
    type: 'system',
    subtype: 'task_updated',
    uuid: randomUUID(),
    task_id: taskId,
    patch: { status: 'killed' },
  });
}

/** `system/task_notification`: background task `taskId` ended with `status`. */
export function taskNotificationSystem(taskId: string, status: string): SDKMessage {
  return message({ type: 'system', subtype: 'task_notification', uuid: randomUUID(), task_id: taskId, status });
}

/** `system/background_tasks_changed`: the background tasks running now, as `[taskId, taskType]` pairs. */
export function backgroundTasksChanged(...tasks: [taskId: string, taskType: string][]): SDKMessage {
  return message({
    type: 'system',
    subtype: 'background_tasks_changed',
    uuid: randomUUID(),
    tasks: tasks.map(([task_id, task_type]) => ({ task_id, task_type })),
  });
}

/** The tool_result of a background launch: the command runs on as task `taskId`. */
export function backgroundLaunchResult(toolUseId: string, taskId: string): SDKMessage {
  return message({
    type: 'user',
    uuid: randomUUID(),
    parent_tool_use_id: null,
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: toolUseId, content: `Command running in background with ID: ${taskId}.` },
      ],
    },
    tool_use_result: { stdout: '', stderr: '', interrupted: false, backgroundTaskId: taskId },
  });
}
