import type { EmitEvent } from '@outrigger/protocol';
import { RecentKeys } from '../shared/recentKeys.ts';
import { asRecord, type JsonRecord, nonEmptyString, stringOrEmpty } from '../shared/sdkValues.ts';
import {
  buildToolCallPayload,
  createToolCallState,
  setToolInput,
  type ToolCallMetadata,
  type ToolCallState,
  type ToolResultView,
  toolResultView,
} from './toolCallPayload.ts';

/** How many canonically completed call ids are remembered to keep late duplicates out. */
const COMPLETED_IDS_KEPT = 1024;

/**
 * Tool calls from tool_use to their one canonical completion: `tool_started` once the input is
 * complete, `tool_updated` for progress, `tool_completed`/`tool_failed` from the user message's
 * tool_result (or, for a background launch, from the successful root result), and a provisional
 * `tool_completed` with `resultSource:'hook'` from PostToolUse.
 */
export class ToolCalls {
  readonly #emit: EmitEvent;
  readonly #calls = new Map<string, ToolCallState>();
  /** Tool blocks of the root stream's current API message, by content-block index. */
  #streamed: (ToolCallState | undefined)[] = [];
  readonly #completed = new RecentKeys(COMPLETED_IDS_KEPT);

  constructor(emit: EmitEvent) {
    this.#emit = emit;
  }

  get(toolUseId: string): ToolCallState | undefined {
    return this.#calls.get(toolUseId);
  }

  streamMessageStart(): void {
    this.#streamed = [];
  }

  streamBlockStart(index: number, block: JsonRecord, turnId: string | undefined): void {
    const id = nonEmptyString(block.id);
    if (id === undefined || this.#completed.has(id)) return;
    const tool =
      this.#calls.get(id) ??
      this.#register(id, stringOrEmpty(block.name), asRecord(block.input) ?? {}, undefined, turnId);
    this.#streamed[index] = tool;
  }

  streamInputDelta(index: number, partialJson: string): void {
    const tool = this.#streamed[index];
    if (tool !== undefined && !tool.started) tool.inputJson += partialJson;
  }

  /** Returns false when the index is not a streamed tool block. */
  streamBlockStop(index: number, turnId: string | undefined): boolean {
    const tool = this.#streamed[index];
    if (tool === undefined) return false;
    this.#streamed[index] = undefined;
    if (!tool.started) {
      const input = parseObject(tool.inputJson);
      if (input !== undefined) setToolInput(tool, input);
      this.#start(tool, turnId);
    }
    return true;
  }

  /** A tool_use block of a consolidated `assistant` message: its input is final. */
  assistantToolUse(block: JsonRecord, parentToolUseId: string | undefined, turnId: string | undefined): void {
    const id = nonEmptyString(block.id);
    if (id === undefined || this.#completed.has(id)) return;
    const input = asRecord(block.input) ?? {};
    const known = this.#calls.get(id);
    const tool = known ?? this.#register(id, stringOrEmpty(block.name), input, parentToolUseId, turnId);
    if (!tool.started) {
      if (known !== undefined) setToolInput(tool, input);
      this.#start(tool, turnId);
    }
  }

  progress(message: JsonRecord, turnId: string | undefined): void {
    const id = nonEmptyString(message.tool_use_id);
    if (id === undefined || this.#completed.has(id)) return;
    const heartbeatOf = heartbeatTarget(message, id);
    if (heartbeatOf !== undefined) {
      this.#heartbeat(heartbeatOf, message, turnId);
      return;
    }
    const tool =
      this.#calls.get(id) ??
      this.#register(id, stringOrEmpty(message.tool_name), {}, nonEmptyString(message.parent_tool_use_id), turnId);
    if (!tool.started) this.#start(tool, turnId);
    const turn = turnId ?? tool.turnId;
    if (turn === undefined) return;
    const elapsed = message.elapsed_time_seconds;
    const extra = typeof elapsed === 'number' ? { elapsedSeconds: elapsed } : undefined;
    this.#emit('tool_updated', buildToolCallPayload(turn, tool, 'streaming', undefined, extra));
  }

  /**
   * A heartbeat of a running call: its elapsed time, reported on the call itself. One for a call that
   * ended or was never announced is dropped; a heartbeat is never a call of its own.
   */
  #heartbeat(toolUseId: string, message: JsonRecord, turnId: string | undefined): void {
    const tool = this.#calls.get(toolUseId);
    const turn = turnId ?? tool?.turnId;
    if (tool === undefined || !tool.started || turn === undefined) return;
    const elapsed = message.elapsed_time_seconds;
    const extra = typeof elapsed === 'number' ? { elapsedSeconds: elapsed } : undefined;
    this.#emit('tool_updated', buildToolCallPayload(turn, tool, 'streaming', undefined, extra));
  }

  /**
   * A tool_result block of a user message. Returns the call when the result was accepted (not a
   * duplicate), so the caller can fold plan and delegation state from it.
   */
  result(
    block: JsonRecord,
    toolResponse: unknown,
    parentToolUseId: string | undefined,
    turnId: string | undefined,
  ): ToolCallState | undefined {
    const id = nonEmptyString(block.tool_use_id);
    if (id === undefined || this.#completed.has(id)) return undefined;
    const tool = this.#calls.get(id) ?? createToolCallState(id, '', {}, parentToolUseId, turnId);
    const view = toolResultView(block, toolResponse);
    if (tool.background && !view.isError && tool.parentToolUseId === undefined) {
      tool.backgroundTaskId = nonEmptyString(asRecord(toolResponse)?.backgroundTaskId);
      tool.launchResult = view;
      const turn = turnId ?? tool.turnId;
      if (turn !== undefined) {
        this.#emit('tool_updated', buildToolCallPayload(turn, tool, 'streaming', view, backgroundProcess(tool)));
      }
      return tool;
    }
    this.#complete(tool, view, turnId, tool.callType === 'subagent' ? asyncSubagentMetadata(toolResponse) : undefined);
    return tool;
  }

  /** PostToolUse: a provisional result, superseded by the canonical one whatever the order. */
  hookResult(
    toolUseId: string,
    toolName: string,
    toolInput: JsonRecord,
    toolResponse: unknown,
    parentToolUseId: string | undefined,
    turnId: string,
  ): void {
    if (this.#completed.has(toolUseId)) return;
    const tool = this.#calls.get(toolUseId) ?? this.#register(toolUseId, toolName, toolInput, parentToolUseId, turnId);
    if (tool.hookCompleted) return;
    tool.hookCompleted = true;
    tool.started = true;
    const view: ToolResultView = { isError: false, toolResponse };
    this.#emit('tool_completed', buildToolCallPayload(turnId, tool, 'completed', view, { resultSource: 'hook' }));
  }

  /** A successful root result: launched background processes keep running, their launch calls end. */
  completeBackgroundLaunches(turnId: string): void {
    for (const tool of this.#calls.values()) {
      if (tool.background && tool.parentToolUseId === undefined) {
        this.#complete(tool, tool.launchResult, turnId, backgroundProcess(tool));
      }
    }
  }

  /**
   * The turn ended without Claude Code closing its calls (a cancel, a dead child, a failed result): each
   * call it announced ends here with `tool_failed`, so no tool card runs forever and every tool_use has
   * one result. A call the PostToolUse hook already completed keeps that completion; a canonical result
   * arriving later is dropped like any duplicate.
   */
  failOpen(turnId: string, error: string): void {
    for (const tool of [...this.#calls.values()]) {
      if (tool.turnId !== turnId || !tool.started || tool.hookCompleted) continue;
      this.#complete(tool, { isError: true, text: error }, turnId, { interrupted: true });
    }
  }

  reset(): void {
    this.#calls.clear();
    this.#streamed = [];
  }

  #register(
    id: string,
    name: string,
    input: JsonRecord,
    parentToolUseId: string | undefined,
    turnId: string | undefined,
  ): ToolCallState {
    const tool = createToolCallState(id, name, input, parentToolUseId, turnId);
    this.#calls.set(id, tool);
    return tool;
  }

  #start(tool: ToolCallState, turnId: string | undefined): void {
    tool.started = true;
    tool.inputJson = '';
    const turn = turnId ?? tool.turnId;
    if (turn !== undefined) this.#emit('tool_started', buildToolCallPayload(turn, tool, 'streaming'));
  }

  #complete(
    tool: ToolCallState,
    view: ToolResultView | undefined,
    turnId: string | undefined,
    metadataExtra: Partial<ToolCallMetadata> | undefined,
  ): void {
    this.#calls.delete(tool.id);
    this.#completed.add(tool.id);
    const turn = turnId ?? tool.turnId;
    if (turn === undefined) return;
    const failed = view?.isError === true;
    const metadata: Partial<ToolCallMetadata> = { resultSource: 'canonical' };
    if (metadataExtra !== undefined) Object.assign(metadata, metadataExtra);
    this.#emit(
      failed ? 'tool_failed' : 'tool_completed',
      buildToolCallPayload(turn, tool, failed ? 'failed' : 'completed', view, metadata),
    );
  }
}

/** `<id>-heartbeat-<n>` (a tool's) and `hook-<event>-<id>-heartbeat-<n>` (a hook's). */
const HEARTBEAT_ID = /^(?:hook-[A-Za-z]+-)?(.+)-heartbeat-\d+$/;

/**
 * The running call a `tool_progress` is a heartbeat of. Claude Code sends one every 30 s while a tool
 * (or a hook of it) runs without progress of its own, under an id of its own and with
 * `parent_tool_use_id` naming the running call (`heartbeat: true` on the newer ones).
 */
function heartbeatTarget(message: JsonRecord, id: string): string | undefined {
  const parent = nonEmptyString(message.parent_tool_use_id);
  if (parent === undefined || parent === id) return undefined;
  return message.heartbeat === true || HEARTBEAT_ID.exec(id)?.[1] === parent ? parent : undefined;
}

function backgroundProcess(tool: ToolCallState): Partial<ToolCallMetadata> {
  return {
    backgroundProcess:
      tool.backgroundTaskId === undefined
        ? { status: 'running' }
        : { taskId: tool.backgroundTaskId, status: 'running' },
  };
}

/** The Agent tool's launch acknowledgement for a subagent that keeps running in the background. */
function asyncSubagentMetadata(toolResponse: unknown): Partial<ToolCallMetadata> | undefined {
  const response = asRecord(toolResponse);
  if (response?.status !== 'async_launched') return undefined;
  const metadata: Partial<ToolCallMetadata> = {
    async: true,
    subagentAsync: true,
    taskStatus: 'running',
    subagentStatus: 'running',
  };
  const agentId = nonEmptyString(response.agentId);
  const outputFile = nonEmptyString(response.outputFile);
  if (agentId !== undefined) {
    metadata.agentId = agentId;
    metadata.subagentAgentId = agentId;
  }
  if (outputFile !== undefined) {
    metadata.outputFile = outputFile;
    metadata.subagentOutputFile = outputFile;
  }
  return metadata;
}

function parseObject(json: string): JsonRecord | undefined {
  if (json === '') return undefined;
  try {
    return asRecord(JSON.parse(json));
  } catch {
    return undefined;
  }
}
