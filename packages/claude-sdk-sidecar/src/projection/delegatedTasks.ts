import type { DelegatedTask, EmitEvent } from '@outrigger/protocol';
import { asRecord, type JsonRecord, nonEmptyString, terminalTaskStatus } from '../shared/sdkValues.ts';
import type { ToolCallState } from './toolCallPayload.ts';

type TaskStatus = 'running' | 'completed' | 'failed' | 'stopped';

interface DelegatedTaskState {
  readonly taskId: string;
  /** The Agent/Task tool call that launched the task. */
  readonly toolCallId: string;
  readonly turnId: string | undefined;
  readonly input: JsonRecord;
  status: TaskStatus;
  description: string | undefined;
  agentId: string | undefined;
  outputFile: string | undefined;
}

interface TaskDetails {
  description?: string;
  summary?: string;
  lastToolName?: string;
  usage?: unknown;
}

/**
 * Subagent tasks launched by the Agent (Task) tool, from the SDK's system task_* messages:
 * `task_started`, `task_progress`, one `task_completed`, and `task_result_updated` for a
 * notification that arrives after the task already ended. Shell tasks are not delegated tasks.
 */
export class DelegatedTasks {
  readonly #emit: EmitEvent;
  readonly #toolCall: (toolUseId: string) => ToolCallState | undefined;
  readonly #tasks = new Map<string, DelegatedTaskState>();

  constructor(emit: EmitEvent, toolCall: (toolUseId: string) => ToolCallState | undefined) {
    this.#emit = emit;
    this.#toolCall = toolCall;
  }

  started(message: JsonRecord, turnId: string | undefined): void {
    const taskId = nonEmptyString(message.task_id);
    const toolCallId = nonEmptyString(message.tool_use_id);
    if (taskId === undefined || toolCallId === undefined) return;
    const tool = this.#toolCall(toolCallId);
    const taskType = nonEmptyString(message.task_type);
    if (taskType !== 'local_agent' && !(taskType === undefined && tool?.callType === 'subagent')) return;
    const description = nonEmptyString(message.description);
    const task: DelegatedTaskState = {
      taskId,
      toolCallId,
      turnId: turnId ?? tool?.turnId,
      input: tool?.input ?? launchInput(message),
      status: 'running',
      description,
      // A subagent's agent id is its task id (SDKAssistantMessage.agent_id).
      agentId: taskId,
      outputFile: undefined,
    };
    this.#tasks.set(taskId, task);
    this.#publish('task_started', task, turnId, description === undefined ? {} : { description });
  }

  progress(message: JsonRecord, turnId: string | undefined): void {
    const task = this.#task(message);
    if (task === undefined || task.status !== 'running') return;
    this.#publish('task_progress', task, turnId, details(message));
  }

  /** `task_updated`: only a terminal status patch matters here. */
  updated(message: JsonRecord, turnId: string | undefined): void {
    const task = this.#task(message);
    const patch = asRecord(message.patch);
    const status = terminalTaskStatus(patch?.status);
    if (task === undefined || status === undefined) return;
    const error = nonEmptyString(patch?.error);
    this.#finish(task, status, turnId, error === undefined ? {} : { summary: error });
  }

  notification(message: JsonRecord, turnId: string | undefined): void {
    const task = this.#task(message);
    if (task === undefined) return;
    task.outputFile = nonEmptyString(message.output_file) ?? task.outputFile;
    const status = terminalTaskStatus(message.status) ?? 'completed';
    if (task.status === 'running') {
      this.#finish(task, status, turnId, details(message));
      return;
    }
    this.#publish('task_result_updated', task, turnId, details(message));
  }

  /** The launching tool's result names the agent and its output file. */
  launched(toolCallId: string, toolResponse: unknown): void {
    const response = asRecord(toolResponse);
    if (response === undefined) return;
    for (const task of this.#tasks.values()) {
      if (task.toolCallId !== toolCallId) continue;
      task.agentId = nonEmptyString(response.agentId) ?? task.agentId;
      task.outputFile = nonEmptyString(response.outputFile) ?? task.outputFile;
    }
  }

  reset(): void {
    this.#tasks.clear();
  }

  #task(message: JsonRecord): DelegatedTaskState | undefined {
    const taskId = nonEmptyString(message.task_id);
    return taskId === undefined ? undefined : this.#tasks.get(taskId);
  }

  #finish(task: DelegatedTaskState, status: TaskStatus, turnId: string | undefined, extra: TaskDetails): void {
    task.status = status;
    this.#publish('task_completed', task, turnId, extra);
  }

  #publish(
    type: 'task_started' | 'task_progress' | 'task_completed' | 'task_result_updated',
    task: DelegatedTaskState,
    turnId: string | undefined,
    extra: TaskDetails,
  ): void {
    const turn = turnId ?? task.turnId;
    if (turn === undefined) return;
    const metadata: DelegatedTask['metadata'] = {
      adapter: 'claude-agent-sdk',
      parentToolUseId: task.toolCallId,
      async: true,
      subagentAsync: true,
      taskStatus: task.status,
      subagentStatus: task.status,
      taskId: task.taskId,
    };
    const payload: DelegatedTask = {
      turnId: turn,
      parentToolUseId: task.toolCallId,
      toolCallId: task.toolCallId,
      callId: task.toolCallId,
      taskId: task.taskId,
      status: task.status,
      input: task.input,
      metadata,
    };
    if (task.agentId !== undefined) {
      payload.agentId = task.agentId;
      metadata.agentId = task.agentId;
      metadata.subagentAgentId = task.agentId;
    }
    if (task.outputFile !== undefined) {
      payload.outputFile = task.outputFile;
      metadata.outputFile = task.outputFile;
      metadata.subagentOutputFile = task.outputFile;
    }
    const description = extra.description ?? task.description;
    if (description !== undefined) payload.description = description;
    if (extra.summary !== undefined) payload.summary = extra.summary;
    if (extra.lastToolName !== undefined) payload.lastToolName = extra.lastToolName;
    if (extra.usage !== undefined) payload.usage = extra.usage;
    this.#emit(type, payload);
  }
}

function details(message: JsonRecord): TaskDetails {
  const found: TaskDetails = {};
  const description = nonEmptyString(message.description);
  const summary = nonEmptyString(message.summary);
  const lastToolName = nonEmptyString(message.last_tool_name);
  if (description !== undefined) found.description = description;
  if (summary !== undefined) found.summary = summary;
  if (lastToolName !== undefined) found.lastToolName = lastToolName;
  if (message.usage !== undefined) found.usage = message.usage;
  return found;
}

/** The launch fields task_started repeats, for a task whose tool_use this projector never saw. */
function launchInput(message: JsonRecord): JsonRecord {
  const input: JsonRecord = {};
  const description = nonEmptyString(message.description);
  const subagentType = nonEmptyString(message.subagent_type);
  if (description !== undefined) input.description = description;
  if (subagentType !== undefined) input.subagent_type = subagentType;
  return input;
}
