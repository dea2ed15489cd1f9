import type { PostToolUseHookInput, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { EmitEvent } from '@outrigger/protocol';
import { asRecord, type JsonRecord, nonEmptyString, stringOrEmpty } from '../shared/sdkValues.ts';
import { AssistantStream } from './assistantStream.ts';
import { Compaction } from './compaction.ts';
import { DelegatedTasks } from './delegatedTasks.ts';
import { SlashCommandCatalog } from './slashCommands.ts';
import { PLAN_TOOLS, TaskPlan } from './taskPlan.ts';
import { ToolCalls } from './toolCalls.ts';

/**
 * Pure SDK-message → protocol-event projection for one session. The router calls `project` for
 * every SDK message after the identity barrier, with the canonical turn the message belongs to
 * (undefined when no turn is active; session-level events do not need one).
 */
export interface StreamProjector {
  project(message: SDKMessage, turnId: string | undefined): void;
  /** PostToolUse hook: a provisional result and the plan, at once, for the plan tools. */
  postToolUse(input: PostToolUseHookInput, toolUseId: string | undefined, turnId: string): void;
  /** A successful root result: close the `run_in_background` launch calls still open. */
  completeBackgroundLaunches(turnId: string): void;
  /** The turn ended abnormally: its open tool calls fail with this error (once each). */
  failOpenToolCalls(turnId: string, error: string): void;
  /** A new Query generation: in-flight stream and tool state of the old one is dropped. */
  reset(): void;
  /** The slash commands of the Query's initialization (entries with descriptions), as `commands_changed` lists them. */
  announceCommands(entries: unknown, providerSessionId: string): void;
}

export interface StreamProjectorOptions {
  emit: EmitEvent;
}

export function createStreamProjector({ emit }: StreamProjectorOptions): StreamProjector {
  const assistant = new AssistantStream(emit);
  const tools = new ToolCalls(emit);
  const plan = new TaskPlan();
  const tasks = new DelegatedTasks(emit, (toolUseId) => tools.get(toolUseId));
  const commands = new SlashCommandCatalog();
  const compaction = new Compaction(emit);
  let speedState: string | undefined;

  function projectStreamEvent(event: JsonRecord, turnId: string | undefined): void {
    const index = event.index;
    switch (event.type) {
      case 'message_start':
        assistant.messageStart(nonEmptyString(asRecord(event.message)?.id), turnId);
        tools.streamMessageStart();
        return;
      case 'content_block_start': {
        const block = asRecord(event.content_block);
        if (typeof index !== 'number' || block === undefined) return;
        if (block.type === 'text') assistant.blockStart(index, 'assistant', stringOrEmpty(block.text), turnId);
        else if (block.type === 'thinking')
          assistant.blockStart(index, 'thinking', stringOrEmpty(block.thinking), turnId);
        else if (isToolUse(block.type)) tools.streamBlockStart(index, block, turnId);
        return;
      }
      case 'content_block_delta': {
        const delta = asRecord(event.delta);
        if (typeof index !== 'number' || delta === undefined) return;
        if (delta.type === 'text_delta') assistant.delta(index, 'assistant', stringOrEmpty(delta.text), turnId);
        else if (delta.type === 'thinking_delta')
          assistant.delta(index, 'thinking', stringOrEmpty(delta.thinking), turnId);
        else if (delta.type === 'input_json_delta') tools.streamInputDelta(index, stringOrEmpty(delta.partial_json));
        return;
      }
      case 'content_block_stop':
        if (typeof index === 'number' && !assistant.blockStop(index, turnId)) tools.streamBlockStop(index, turnId);
        return;
      case 'message_delta': {
        assistant.messageDelivered(turnId);
        const usage = asRecord(event.usage);
        if (usage !== undefined && turnId !== undefined) emit('usage_updated', { turnId, usage });
        return;
      }
      case 'message_stop':
        assistant.messageStop(turnId);
        return;
    }
  }

  function projectAssistant(message: JsonRecord, turnId: string | undefined): void {
    const body = asRecord(message.message);
    const content = body?.content;
    if (!Array.isArray(content)) return;
    const parentToolUseId = nonEmptyString(message.parent_tool_use_id);
    const apiMessageId = nonEmptyString(body?.id);
    // An interrupted message (aborted) is a partial, like one with an SDK error: it never reads as an answer.
    const failed = (message.error !== undefined && message.error !== null) || message.aborted === true;
    for (const item of content) {
      const block = asRecord(item);
      if (block === undefined) continue;
      if (isToolUse(block.type)) {
        tools.assistantToolUse(block, parentToolUseId, turnId);
      } else if (parentToolUseId === undefined) {
        // Subagent prose belongs to the subagent's transcript, not the root turn's output.
        if (block.type === 'text')
          assistant.completeBlock(apiMessageId, 'assistant', stringOrEmpty(block.text), failed, turnId);
        else if (block.type === 'thinking')
          assistant.completeBlock(apiMessageId, 'thinking', stringOrEmpty(block.thinking), false, turnId);
      }
    }
  }

  function projectUser(message: JsonRecord, turnId: string | undefined): void {
    const content = asRecord(message.message)?.content;
    if (!Array.isArray(content)) return;
    const parentToolUseId = nonEmptyString(message.parent_tool_use_id);
    // tool_use_result belongs to the message, so it is only attributable when one result is in it.
    let results = 0;
    for (const item of content) if (asRecord(item)?.type === 'tool_result') results++;
    const toolResponse = results === 1 ? message.tool_use_result : undefined;
    for (const item of content) {
      const block = asRecord(item);
      if (block?.type !== 'tool_result') continue;
      const tool = tools.result(block, toolResponse, parentToolUseId, turnId);
      if (tool === undefined || block.is_error === true) continue;
      if (tool.callType === 'subagent') tasks.launched(tool.id, toolResponse);
      else if (parentToolUseId === undefined && PLAN_TOOLS.has(tool.name)) {
        foldPlan(tool.name, tool.input, toolResponse, turnId ?? tool.turnId);
      }
    }
  }

  function projectSystem(message: JsonRecord, turnId: string | undefined): void {
    switch (message.subtype) {
      case 'init':
        publishCommands(commands.fromInit(message.slash_commands), message.session_id);
        break;
      case 'commands_changed':
        publishCommands(commands.fromChanged(message.commands), message.session_id);
        break;
      case 'status':
        compaction.status(message.status, message.compact_result, message.compact_error, turnId);
        break;
      case 'compact_boundary':
        compaction.boundary(turnId);
        break;
      case 'task_started':
        tasks.started(message, turnId);
        break;
      case 'task_progress':
        tasks.progress(message, turnId);
        break;
      case 'task_updated':
        tasks.updated(message, turnId);
        break;
      case 'task_notification':
        tasks.notification(message, turnId);
        break;
    }
    if (message.fast_mode_state !== undefined) publishSpeed(message.fast_mode_state);
  }

  function foldPlan(toolName: string, input: JsonRecord, toolResponse: unknown, turnId: string | undefined): void {
    if (plan.fold(toolName, input, toolResponse) && turnId !== undefined) {
      emit('plan_updated', { turnId, entries: plan.entries });
    }
  }

  function publishCommands(list: ReturnType<SlashCommandCatalog['fromInit']>, sessionId: unknown): void {
    const providerSessionId = nonEmptyString(sessionId);
    if (list !== undefined && providerSessionId !== undefined)
      emit('commands_updated', { providerSessionId, commands: list });
  }

  function publishSpeed(state: unknown): void {
    if (typeof state !== 'string' || state === speedState) return;
    speedState = state;
    if (state === 'on') emit('speed_updated', { state, speed: 'fast' });
    else if (state === 'off') emit('speed_updated', { state, speed: 'standard' });
    else emit('speed_updated', { state });
  }

  return {
    announceCommands(entries, providerSessionId) {
      publishCommands(commands.fromChanged(entries), providerSessionId);
    },
    project(message, turnId) {
      const record = message as unknown as JsonRecord;
      switch (message.type) {
        case 'stream_event': {
          // Subagent streams are not root output; their tool calls arrive as assistant messages.
          const event = asRecord(record.event);
          if (event !== undefined && nonEmptyString(record.parent_tool_use_id) === undefined)
            projectStreamEvent(event, turnId);
          return;
        }
        case 'assistant':
          projectAssistant(record, turnId);
          return;
        case 'user':
          projectUser(record, turnId);
          return;
        case 'tool_progress':
          tools.progress(record, turnId);
          return;
        case 'system':
          projectSystem(record, turnId);
          return;
        case 'result':
          if (record.fast_mode_state !== undefined) publishSpeed(record.fast_mode_state);
          return;
      }
    },

    postToolUse(input, toolUseId, turnId) {
      const toolName = input.tool_name;
      const id = toolUseId ?? nonEmptyString(input.tool_use_id);
      // A subagent's own todo list is not the session's plan.
      if (!PLAN_TOOLS.has(toolName) || id === undefined || input.agent_id !== undefined) return;
      const toolInput = asRecord(input.tool_input) ?? {};
      tools.hookResult(id, toolName, toolInput, input.tool_response, undefined, turnId);
      foldPlan(toolName, toolInput, input.tool_response, turnId);
    },

    completeBackgroundLaunches(turnId) {
      tools.completeBackgroundLaunches(turnId);
    },

    failOpenToolCalls(turnId, error) {
      tools.failOpen(turnId, error);
    },

    reset() {
      assistant.reset();
      tools.reset();
      tasks.reset();
      commands.reset();
      compaction.reset();
      speedState = undefined;
    },
  };
}

function isToolUse(type: unknown): boolean {
  return type === 'tool_use' || type === 'server_tool_use' || type === 'mcp_tool_use';
}
