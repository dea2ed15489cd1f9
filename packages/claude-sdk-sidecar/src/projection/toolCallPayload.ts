import type { ToolCall, ToolCallStatus, ToolCallType } from '@outrigger/protocol';
import { asRecord, type JsonRecord, nonEmptyString } from '../shared/sdkValues.ts';

/** What the projector knows about one tool call between its tool_use and its canonical result. */
export interface ToolCallState {
  readonly id: string;
  name: string;
  callType: ToolCallType;
  input: JsonRecord;
  /** Accumulated input_json_delta text; parsed once, when the input block is complete. */
  inputJson: string;
  parentToolUseId: string | undefined;
  /** The turn the call started in, for results that arrive when no turn is active. */
  turnId: string | undefined;
  started: boolean;
  hookCompleted: boolean;
  /** A `run_in_background` launch: its tool_result only acknowledges the launch. */
  background: boolean;
  backgroundTaskId: string | undefined;
  launchResult: ToolResultView | undefined;
}

/** A tool result reduced to what the protocol carries. */
export interface ToolResultView {
  isError: boolean;
  /** The result text (string content, or the text blocks of array content joined by newlines). */
  text?: string;
  /** Array content as sent to the model (text, image, … blocks). */
  content?: unknown;
  /** The tool's structured output (`tool_use_result`, or the hook's `tool_response`). */
  toolResponse?: unknown;
}

export type ToolCallMetadata = ToolCall['metadata'];

const CALL_TYPES: ReadonlyMap<string, ToolCallType> = new Map<string, ToolCallType>([
  ['AskUserQuestion', 'interactive'],
  ['ExitPlanMode', 'interactive'],
  ['EnterPlanMode', 'interactive'],
  ['Task', 'subagent'],
  ['Agent', 'subagent'],
  ['Bash', 'command'],
  ['PowerShell', 'command'],
  ['Write', 'file_change'],
  ['Edit', 'file_change'],
  ['MultiEdit', 'file_change'],
  ['NotebookEdit', 'file_change'],
  ['WebSearch', 'web_search'],
  ['WebFetch', 'web_search'],
]);

export function toolCallTypeOf(toolName: string): ToolCallType {
  return CALL_TYPES.get(toolName) ?? (toolName.startsWith('mcp__') ? 'mcp_tool' : 'tool');
}

export function createToolCallState(
  id: string,
  name: string,
  input: JsonRecord,
  parentToolUseId: string | undefined,
  turnId: string | undefined,
): ToolCallState {
  return {
    id,
    name,
    callType: toolCallTypeOf(name),
    input,
    inputJson: '',
    parentToolUseId,
    turnId,
    started: false,
    hookCompleted: false,
    background: input.run_in_background === true,
    backgroundTaskId: undefined,
    launchResult: undefined,
  };
}

export function setToolInput(tool: ToolCallState, input: JsonRecord): void {
  tool.input = input;
  tool.background = input.run_in_background === true;
}

export function toolResultView(block: JsonRecord, toolResponse: unknown): ToolResultView {
  const view: ToolResultView = { isError: block.is_error === true };
  const raw = block.content;
  if (typeof raw === 'string') {
    view.text = raw;
  } else if (Array.isArray(raw)) {
    view.content = raw;
    const text = joinedText(raw);
    if (text !== undefined) view.text = text;
  }
  if (toolResponse !== undefined) view.toolResponse = toolResponse;
  return view;
}

export function buildToolCallPayload(
  turnId: string,
  tool: ToolCallState,
  status: ToolCallStatus,
  result?: ToolResultView,
  metadataExtra?: Partial<ToolCallMetadata>,
): ToolCall {
  const metadata: ToolCallMetadata = { adapter: 'claude-agent-sdk', toolName: tool.name };
  if (tool.parentToolUseId !== undefined) metadata.parentToolUseId = tool.parentToolUseId;
  if (metadataExtra !== undefined) Object.assign(metadata, metadataExtra);
  const payload: ToolCall = {
    turnId,
    toolCallId: tool.id,
    callId: tool.id,
    toolName: tool.name,
    callType: tool.callType,
    name: tool.name,
    status,
    input: { ...tool.input, toolName: tool.name },
    locations: toolLocations(tool.input),
    metadata,
  };
  const fileChange = tool.callType === 'file_change' ? fileChangeBlock(tool) : undefined;
  if (fileChange !== undefined || result !== undefined) {
    const content: { type: string }[] = [];
    if (fileChange !== undefined) content.push(fileChange);
    if (result !== undefined) content.push(toolResultBlock(result));
    payload.content = content;
  }
  if (result !== undefined) {
    payload.output = toolOutput(result);
    if (status === 'failed') payload.error = result.text || 'Claude Code tool call failed';
  }
  return payload;
}

function toolLocations(input: JsonRecord): { path: string }[] {
  const filePath = nonEmptyString(input.file_path);
  const path = nonEmptyString(input.path);
  const notebookPath = nonEmptyString(input.notebook_path);
  const locations: { path: string }[] = [];
  if (filePath !== undefined) locations.push({ path: filePath });
  if (path !== undefined && path !== filePath) locations.push({ path });
  if (notebookPath !== undefined && notebookPath !== filePath && notebookPath !== path) {
    locations.push({ path: notebookPath });
  }
  return locations;
}

function fileChangeBlock(
  tool: ToolCallState,
): { type: 'file_change'; path: string; oldText?: string; newText?: string } | undefined {
  const input = tool.input;
  const path = nonEmptyString(input.file_path) ?? nonEmptyString(input.notebook_path);
  if (path === undefined) return undefined;
  const block: { type: 'file_change'; path: string; oldText?: string; newText?: string } = {
    type: 'file_change',
    path,
  };
  const oldText = nonEmptyString(input.old_string);
  const newText =
    tool.name === 'Write'
      ? nonEmptyString(input.content)
      : tool.name === 'NotebookEdit'
        ? nonEmptyString(input.new_source)
        : nonEmptyString(input.new_string);
  if (oldText !== undefined) block.oldText = oldText;
  if (newText !== undefined) block.newText = newText;
  return block;
}

function toolResultBlock(result: ToolResultView): {
  type: 'tool_result';
  isError: boolean;
  text?: string;
  content?: unknown;
} {
  const block: { type: 'tool_result'; isError: boolean; text?: string; content?: unknown } = {
    type: 'tool_result',
    isError: result.isError,
  };
  if (result.text !== undefined) block.text = result.text;
  if (result.content !== undefined) block.content = result.content;
  return block;
}

function toolOutput(result: ToolResultView): { text?: string; content?: unknown; toolResponse?: unknown } {
  const output: { text?: string; content?: unknown; toolResponse?: unknown } = {};
  if (result.text !== undefined) output.text = result.text;
  if (result.content !== undefined) output.content = result.content;
  if (result.toolResponse !== undefined) output.toolResponse = result.toolResponse;
  return output;
}

function joinedText(blocks: unknown[]): string | undefined {
  let text: string | undefined;
  for (const item of blocks) {
    const block = asRecord(item);
    if (block?.type !== 'text' || typeof block.text !== 'string') continue;
    text = text === undefined ? block.text : `${text}\n${block.text}`;
  }
  return text;
}
