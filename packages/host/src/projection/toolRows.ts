import {
  type FileChange,
  isRefusedDecision,
  type ResultSource,
  type ToolDecision,
  type ToolOutcome,
  type ToolResultBlock,
  type ToolUseBlock,
} from '@outrigger/host-api';
import type { ToolCall } from '@outrigger/protocol';

/*
 * Tool rows: the `tool_use` block a sidecar ToolCall becomes, the file change a diff view needs, the
 * result text, and the dedup rank of results (*one result per call*).
 */

type Json = Record<string, unknown>;

const rank: Readonly<Record<ResultSource, number>> = { synthesized: 0, hook: 1, canonical: 2 };

/** Layer-1 dedup: does `incoming` replace `stored`? Higher rank wins whatever the order; equal rank: last wins. */
export function resultReplaces(incoming: ResultSource, stored: ResultSource | undefined): boolean {
  return stored === undefined || rank[incoming] >= rank[stored];
}

function resultSourceOf(call: ToolCall): ResultSource {
  const source = call.metadata.resultSource;
  return source === 'hook' || source === 'synthesized' ? source : 'canonical';
}

/** The tool input without the `toolName` key the sidecar adds for older hosts. */
export function toolInputOf(call: ToolCall): Json {
  const { toolName: _toolName, ...input } = call.input;
  return input;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const record = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

type Hunk = NonNullable<FileChange['structuredPatch']>[number];

function hunksOf(value: unknown): Hunk[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const hunks: Hunk[] = [];
  for (const item of value) {
    const hunk = record(item);
    if (
      hunk === undefined ||
      typeof hunk.oldStart !== 'number' ||
      typeof hunk.oldLines !== 'number' ||
      typeof hunk.newStart !== 'number' ||
      typeof hunk.newLines !== 'number' ||
      !Array.isArray(hunk.lines)
    ) {
      return undefined;
    }
    hunks.push({
      oldStart: hunk.oldStart,
      oldLines: hunk.oldLines,
      newStart: hunk.newStart,
      newLines: hunk.newLines,
      lines: hunk.lines.filter((line): line is string => typeof line === 'string'),
    });
  }
  return hunks;
}

/** Claude Code's structured patch from a result's `toolResponse` (Edit, MultiEdit, Write), when it sent one. */
export function structuredPatchOf(call: ToolCall): Hunk[] | undefined {
  return hunksOf(record(record(call.output)?.toolResponse)?.structuredPatch);
}

/** What a diff view needs of Edit / MultiEdit / Write / NotebookEdit, from the input; null for other tools. */
export function fileChangeOf(toolName: string, input: Json): FileChange | null {
  switch (toolName) {
    case 'Edit': {
      const path = str(input.file_path);
      if (path === undefined) return null;
      const replaceAll = input.replace_all === true ? { replaceAll: true } : {};
      return {
        path,
        operation: 'edit',
        edits: [{ oldText: str(input.old_string) ?? '', newText: str(input.new_string) ?? '', ...replaceAll }],
      };
    }
    case 'MultiEdit': {
      const path = str(input.file_path);
      if (path === undefined) return null;
      const edits = Array.isArray(input.edits) ? input.edits : [];
      return {
        path,
        operation: 'multi_edit',
        edits: edits.flatMap((item) => {
          const edit = record(item);
          if (edit === undefined) return [];
          const replaceAll = edit.replace_all === true ? { replaceAll: true } : {};
          return [{ oldText: str(edit.old_string) ?? '', newText: str(edit.new_string) ?? '', ...replaceAll }];
        }),
      };
    }
    case 'Write': {
      const path = str(input.file_path);
      if (path === undefined) return null;
      return { path, operation: 'create', edits: [], content: str(input.content) ?? '' };
    }
    case 'NotebookEdit': {
      const path = str(input.notebook_path);
      if (path === undefined) return null;
      return { path, operation: 'notebook_edit', edits: [{ oldText: '', newText: str(input.new_source) ?? '' }] };
    }
    default:
      return null;
  }
}

/** The result's text: the tool_result text, else the tool's structured output (Bash: its stdout/stderr). */
function resultTextOf(call: ToolCall): string {
  const output = record(call.output);
  const text = str(output?.text);
  if (text !== undefined) return text;
  const response = output?.toolResponse;
  if (typeof response === 'string') return response;
  const fields = record(response);
  if (fields !== undefined && (typeof fields.stdout === 'string' || typeof fields.stderr === 'string')) {
    return [str(fields.stdout), str(fields.stderr)].filter((part) => part !== undefined && part !== '').join('\n');
  }
  if (response !== undefined) return JSON.stringify(response);
  return call.error ?? '';
}

export function toolResultFrom(call: ToolCall, failed: boolean): ToolResultBlock {
  const content = resultTextOf(call);
  return {
    type: 'tool_result',
    tool_use_id: call.toolCallId,
    content,
    is_error: failed,
    resultSource: resultSourceOf(call),
    truncated: false,
    length: content.length,
  };
}

export function synthesizedResult(toolUseId: string, reason: string): ToolResultBlock {
  const content = `The tool call ended without a result: ${reason}.`;
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content,
    is_error: true,
    resultSource: 'synthesized',
    truncated: false,
    length: content.length,
  };
}

/** A `tool_updated`'s live output text (a background launch's acknowledgement), if it carries one. */
export function liveOutputOf(call: ToolCall): string | undefined {
  const output = record(call.output);
  if (output === undefined) return undefined;
  const text = resultTextOf(call);
  return text === '' ? undefined : text;
}

export function backgroundOf(call: ToolCall): ToolUseBlock['background'] {
  const process = call.metadata.backgroundProcess;
  if (process === undefined) return null;
  return { taskId: process.taskId ?? null, status: process.status };
}

/** Claude Code's own run time of the call, from a progress report (`tool_progress.elapsed_time_seconds`). */
export function elapsedSecondsOf(call: ToolCall): number | undefined {
  const value = call.metadata.elapsedSeconds;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** `<id>-heartbeat-<n>` (a tool's) and `hook-<event>-<id>-heartbeat-<n>` (a hook's), under `parent_tool_use_id: <id>`. */
const heartbeatId = /^(?:hook-[A-Za-z]+-)?(.+)-heartbeat-\d+$/;

/**
 * The call a heartbeat is about, when `call` is one: Claude Code reports a running tool's heartbeat as a
 * `tool_progress` with its own id under the running call. The sidecar folds these into the running call;
 * an event from a sidecar that does not is still never a call of its own here. `known`: is a call stored.
 */
export function heartbeatTargetOf(call: ToolCall, known: (toolUseId: string) => boolean): string | undefined {
  const parent = call.metadata.parentToolUseId;
  if (parent === undefined || parent === call.toolCallId || !known(parent) || known(call.toolCallId)) return undefined;
  const matched = heartbeatId.exec(call.toolCallId);
  return call.metadata.heartbeat === true || matched?.[1] === parent ? parent : undefined;
}

/** Claude Code's tool_result text for a call the user interrupted (a stop, or a denial that interrupts). */
const interruptedToolText = "The user doesn't want to proceed with this tool use";

/** What a call's winning result says about how it ended. */
export function outcomeOfResult(
  failed: boolean,
  result: Pick<ToolResultBlock, 'resultSource' | 'content'>,
  context: { previous: ToolOutcome | null; decision: ToolDecision | null; turnCanceled: boolean },
): ToolOutcome {
  if (context.previous === 'timed_out') return 'timed_out';
  if (!failed) return 'completed';
  if (isRefusedDecision(context.decision)) return 'denied';
  if (context.turnCanceled || result.content.startsWith(interruptedToolText)) return 'canceled';
  return result.resultSource === 'synthesized' ? 'stopped' : 'failed';
}

/**
 * The card a ToolCall makes, over what an earlier card of the same call knew (`before`): the live projection
 * updates one as events come, a transcript read builds each once. `startedAt` and `decision` are a new card's.
 */
export function toolCardOf(
  call: ToolCall,
  before: ToolUseBlock | undefined,
  fresh: { readonly startedAt: number; readonly decision: () => ToolDecision | null },
): ToolUseBlock {
  const input = toolInputOf(call);
  const patch = structuredPatchOf(call) ?? before?.fileChange?.structuredPatch;
  const fileChange = fileChangeOf(call.toolName, input);
  return {
    type: 'tool_use',
    id: call.toolCallId,
    name: call.toolName,
    callType: call.callType,
    input,
    status: before?.status ?? 'running',
    parentToolUseId: call.metadata.parentToolUseId ?? before?.parentToolUseId ?? null,
    locations: call.locations.map((location) => location.path),
    fileChange:
      fileChange === null ? null : patch === undefined ? fileChange : { ...fileChange, structuredPatch: patch },
    agentTask: before?.agentTask ?? null,
    background: backgroundOf(call) ?? before?.background ?? null,
    output: before?.output ?? null,
    startedAt: before?.startedAt ?? fresh.startedAt,
    endedAt: before?.endedAt ?? null,
    outcome: before?.outcome ?? null,
    decision: before?.decision ?? fresh.decision(),
    elapsedSeconds: elapsedSecondsOf(call) ?? before?.elapsedSeconds ?? null,
  };
}
