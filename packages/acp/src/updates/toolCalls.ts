import type {
  ToolCall,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import { endedTaskStatuses, type ResultSource, type ToolResultBlock, type ToolUseBlock } from '@outrigger/host-api';
import { absolutePath, diffContentOf, fenced, textContent, toolKindOf, toolTitleOf } from './toolPresentation.ts';

/*
 * One host tool call (its `ToolUseBlock` and winning result) as the ACP `tool_call` an editor shows, and the
 * `tool_call_update` that brings an editor from one such state to the next. The state is a pure function of
 * the host's call, so the live path and a replay of the transcript arrive at the same card.
 */

export interface ToolCallContext {
  /** The session's directory: paths become absolute under it. */
  readonly cwd: string;
  /** The Agent call a subagent's call runs under, when known (its description names whose call it is). */
  readonly parent?: ToolUseBlock | undefined;
}

/** The tool call as an editor should show it now. */
export function toolCallOf(tool: ToolUseBlock, result: ToolResultBlock | null, context: ToolCallContext): ToolCall {
  const kind = toolKindOf(tool.name, tool.callType);
  const call: ToolCall = {
    toolCallId: tool.id,
    title: titleOf(tool, context),
    name: tool.name,
    kind,
    status: statusOf(tool),
    content: contentOf(tool, result, kind, context.cwd),
    locations: locationsOf(tool, context.cwd),
    rawInput: tool.input,
  };
  if (result !== null) call.rawOutput = result;
  // Whose call it is, for a client that nests a subagent's calls under its Agent call.
  if (tool.parentToolUseId !== null) call._meta = { outrigger: { parentToolUseId: tool.parentToolUseId } };
  return call;
}

/** What changed between two states of one call, as an update carrying only those fields; undefined: nothing. */
export function toolCallChange(before: ToolCall, after: ToolCall): ToolCallUpdate | undefined {
  const update: ToolCallUpdate = { toolCallId: after.toolCallId };
  let changed = false;
  const fields = ['title', 'name', 'kind', 'status', 'content', 'locations', 'rawInput', 'rawOutput', '_meta'] as const;
  for (const field of fields) {
    if (JSON.stringify(before[field]) === JSON.stringify(after[field])) continue;
    // ToolCallUpdate's fields are ToolCall's, all optional: a field that went away is sent as null (cleared).
    (update as Record<string, unknown>)[field] = after[field] ?? null;
    changed = true;
  }
  return changed ? update : undefined;
}

const ranks: Readonly<Record<ResultSource, number>> = { synthesized: 0, hook: 1, canonical: 2 };

/**
 * The host's dedup rank: `canonical` beats `hook` whatever the order, equal ranks last wins, anything beats
 * `synthesized`. The event log keeps every result, so a client applies it (docs/host-api.md).
 */
export function resultReplaces(incoming: ResultSource, stored: ResultSource | undefined): boolean {
  return stored === undefined || ranks[incoming] >= ranks[stored];
}

function titleOf(tool: ToolUseBlock, context: ToolCallContext): string {
  const title = toolTitleOf(tool.name, tool.input, context.cwd);
  if (tool.parentToolUseId === null) return title;
  // ACP has no nesting: a subagent's calls sit among the main agent's, so the title says whose they are.
  const description = context.parent?.input.description;
  return typeof description === 'string' && description.trim() !== ''
    ? `${title} (subagent: ${description.trim()})`
    : `${title} (subagent)`;
}

function statusOf(tool: ToolUseBlock): ToolCallStatus {
  if (tool.status === 'failed') return 'failed';
  const task = tool.agentTask;
  // An Agent call "completes" when its agent is launched; the editor should see it run until the agent ends.
  if (task !== null) {
    if (!endedTaskStatuses.has(task.status)) return 'in_progress';
    return task.status === 'completed' ? 'completed' : 'failed';
  }
  // The host's `running` covers streaming input, waiting for an answer and running: ACP's in_progress is the
  // one that is true in all three (the editor marks the wait itself while it shows the permission request).
  return tool.status === 'running' ? 'in_progress' : 'completed';
}

function contentOf(tool: ToolUseBlock, result: ToolResultBlock | null, kind: ToolKind, cwd: string): ToolCallContent[] {
  const content: ToolCallContent[] = tool.fileChange === null ? [] : diffContentOf(tool.fileChange, cwd);
  const plan = tool.name === 'ExitPlanMode' ? tool.input.plan : undefined;
  if (typeof plan === 'string' && plan.trim() !== '') content.push(textContent(plan));
  const task = tool.agentTask;
  if (task !== null) {
    // A launched agent's result is the SDK's internal note ("never quote it"); its summary is what it did.
    if (task.summary !== null && task.summary.trim() !== '') content.push(textContent(task.summary));
    else if (result?.is_error === true) content.push(textContent(resultText(result, kind)));
    return content;
  }
  if (result !== null) {
    // A call whose own content says what it did (a diff, a plan, the plan panel) shows its result only when
    // it failed: "The file … has been updated successfully" under the diff tells nothing new.
    if (!quietOnSuccess(tool) || result.is_error) content.push(textContent(resultText(result, kind)));
    return content;
  }
  if (tool.output !== null && tool.output !== '') content.push(textContent(literal(tool.output, kind)));
  return content;
}

function quietOnSuccess(tool: ToolUseBlock): boolean {
  return tool.fileChange !== null || tool.name === 'TodoWrite' || tool.name === 'ExitPlanMode';
}

function resultText(result: ToolResultBlock, kind: ToolKind): string {
  const text = literal(result.content, kind);
  // The host keeps a preview of a long result; say so rather than let the cut look like the end.
  return result.truncated
    ? `${text}\n\n(cut: the first ${result.content.length} of ${result.length} characters)`
    : text;
}

/** Output of tools that print files, logs and matches is literal text; other tools' results are prose. */
function literal(text: string, kind: ToolKind): string {
  return kind === 'execute' || kind === 'read' || kind === 'search' ? fenced(text) : text;
}

function locationsOf(tool: ToolUseBlock, cwd: string): ToolCallLocation[] {
  const line = lineOf(tool);
  return tool.locations.map((path, index) => {
    const location: ToolCallLocation = { path: absolutePath(path, cwd) };
    // The line is known for the call's one file: where a Read starts, where an edit's first hunk lands.
    if (index === 0 && line !== undefined) location.line = line;
    return location;
  });
}

function lineOf(tool: ToolUseBlock): number | undefined {
  if (tool.name === 'Read' && typeof tool.input.offset === 'number' && tool.input.offset >= 1) {
    return Math.floor(tool.input.offset);
  }
  const hunk = tool.fileChange?.structuredPatch?.[0];
  return hunk === undefined ? undefined : Math.max(1, hunk.newStart);
}
