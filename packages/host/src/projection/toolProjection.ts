import {
  type AgentTask,
  type BackgroundTask,
  type ContentBlock,
  endedTaskStatuses,
  hostLimits,
  isRefusedDecision,
  type ToolDecision,
  type ToolOutcome,
  type ToolResultBlock,
  type ToolUseBlock,
  toolDecisionOf,
} from '@outrigger/host-api';
import type { DelegatedTask, ToolCall } from '@outrigger/protocol';
import type { MessageRecord, TurnRecord } from '../store/records.ts';
import type { ProjectionDraft } from './projectionDraft.ts';
import { newRow, resultBlockOf, toolBlockOf } from './rows.ts';
import { isTerminalTurn } from './sessionStatus.ts';
import {
  elapsedSecondsOf,
  heartbeatTargetOf,
  liveOutputOf,
  outcomeOfResult,
  resultReplaces,
  synthesizedResult,
  toolCardOf,
  toolResultFrom,
} from './toolRows.ts';
import { previewToolResult } from './views.ts';

/*
 * Tool calls in the transcript (*one result per call*): one row per tool_use_id holding exactly one result by
 * rank, the file change, live output, delegated (Agent) tasks on their call, and the session's
 * background work (Agent tasks and background commands still running).
 */

const preview = (text: string): string => text.slice(0, hostLimits.toolResultPreviewChars);

export function toolUse(d: ProjectionDraft, turn: TurnRecord, call: ToolCall): void {
  const heartbeatOf = heartbeatTargetOf(call, (id) => d.toolRow(id) !== undefined);
  if (heartbeatOf !== undefined) {
    heartbeat(d, heartbeatOf, call);
    return;
  }
  const existing = d.toolRow(call.toolCallId);
  const before = existing === undefined ? undefined : toolBlockOf(existing);
  const liveOutput = liveOutputOf(call);
  const tool = toolBlock(d, call, before, {
    output: liveOutput === undefined ? (before?.output ?? null) : preview(liveOutput),
  });
  const changed = before === undefined || JSON.stringify(before) !== JSON.stringify(tool);
  if (!changed) return; // the same call again (a duplicate, or progress that shows nothing new)
  const row = putToolRow(d, turn, call.toolCallId, tool, existing);
  d.emit({ type: 'tool_use', data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool } });
  if (liveOutput !== undefined && preview(liveOutput) !== before?.output) {
    d.emit({
      type: 'tool_output',
      data: {
        session_id: d.sessionId,
        turnId: row.turnId,
        messageId: row.id,
        tool_use_id: call.toolCallId,
        output: preview(liveOutput),
      },
    });
  }
  trackBackgroundCommand(d, row, tool);
  d.touch();
}

export function toolResult(d: ProjectionDraft, turn: TurnRecord, call: ToolCall, failed: boolean): void {
  const existing = d.toolRow(call.toolCallId);
  const before = existing === undefined ? undefined : toolBlockOf(existing);
  const stored = existing === undefined ? undefined : resultBlockOf(existing);
  const incoming = toolResultFrom(call, failed);
  const wins = resultReplaces(incoming.resultSource, stored?.resultSource);
  const winner = wins ? incoming : stored!;
  const status: ToolUseBlock['status'] = wins ? (failed ? 'failed' : 'completed') : (before?.status ?? 'completed');
  const decision = before?.decision ?? decisionFromInteractions(d, call.toolCallId);
  const outcome: ToolOutcome = wins
    ? outcomeOfResult(status === 'failed', winner, {
        previous: before?.outcome ?? null,
        decision,
        turnCanceled: turn.status === 'canceled' || call.metadata.interrupted === true,
      })
    : (before?.outcome ?? (status === 'failed' ? 'failed' : 'completed'));
  const tool = toolBlock(d, call, before, { status, endedAt: before?.endedAt ?? d.now, outcome, decision });
  if (
    before !== undefined &&
    stored !== undefined &&
    JSON.stringify(before) === JSON.stringify(tool) &&
    sameResult(stored, incoming)
  ) {
    return; // the same result again: nothing new to store or tell
  }
  const row = putToolRow(d, turn, call.toolCallId, tool, existing, winner);
  if (before === undefined || JSON.stringify(before.fileChange) !== JSON.stringify(tool.fileChange)) {
    d.emit({ type: 'tool_use', data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool } });
  }
  // The log keeps every result, the transcript only the winner; clients apply the same rank.
  emitToolResult(
    d,
    row,
    call.toolCallId,
    tool.status === 'failed' ? 'failed' : 'completed',
    previewToolResult(incoming),
    tool,
  );
  trackBackgroundCommand(d, row, tool);
  d.touch();
}

/**
 * A heartbeat Claude Code sent for a running call (`<id>-heartbeat-<n>`): the call's elapsed time moves on;
 * it is never a call of its own. A heartbeat for a call that already ended changes nothing.
 */
function heartbeat(d: ProjectionDraft, toolUseId: string, call: ToolCall): void {
  const row = d.toolRow(toolUseId)!;
  const tool = toolBlockOf(row)!;
  const elapsedSeconds = elapsedSecondsOf(call);
  if (tool.status !== 'running' || elapsedSeconds === undefined || elapsedSeconds === tool.elapsedSeconds) return;
  updateToolBlock(d, row, { ...tool, elapsedSeconds });
}

/** The person decided on the call's interaction (or it went away unanswered): stored on the call's row. */
export function recordDecision(d: ProjectionDraft, toolUseId: string, decision: ToolDecision): void {
  const row = d.toolRow(toolUseId);
  const tool = row === undefined ? undefined : toolBlockOf(row);
  if (row === undefined || tool === undefined) return; // the row picks it up when it appears (toolBlock)
  // An answer beats a later "not answered" of the same call (a second request superseded at the turn's end).
  if (decision.choice === 'not_answered' && tool.decision !== null && tool.decision.choice !== 'not_answered') return;
  if (JSON.stringify(tool.decision) === JSON.stringify(decision)) return;
  const outcome =
    tool.status !== 'running' && isRefusedDecision(decision) && tool.outcome === 'failed' ? 'denied' : tool.outcome;
  updateToolBlock(d, row, { ...tool, decision, outcome });
}

/** The call ran past the host's `--tool-timeout`: its outcome is `timed_out` whatever result the cancel brings. */
export function markTimedOut(d: ProjectionDraft, toolUseId: string): void {
  const row = d.toolRow(toolUseId);
  const tool = row === undefined ? undefined : toolBlockOf(row);
  if (row === undefined || tool === undefined || tool.outcome === 'timed_out') return;
  if (tool.status !== 'running') return; // it ended before the time-out was recorded
  updateToolBlock(d, row, { ...tool, outcome: 'timed_out' });
}

/** Stores a changed tool block (the result stays) and tells the clients. */
function updateToolBlock(d: ProjectionDraft, row: MessageRecord, tool: ToolUseBlock): void {
  d.putMessage({
    ...row,
    content: row.content.map((block) => (block.type === 'tool_use' ? tool : block)),
    updatedAt: d.now,
  });
  d.emit({ type: 'tool_use', data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool } });
  d.touch();
}

/** The latest resolved interaction of a call, as its decision (a row that appears after the answer). */
function decisionFromInteractions(d: ProjectionDraft, toolUseId: string): ToolDecision | null {
  let latest: ToolDecision | null = null;
  for (const interaction of d.allInteractions()) {
    if (interaction.tool_use_id !== toolUseId || interaction.status === 'pending') continue;
    const decision = toolDecisionOf(interaction, interaction.answer, interaction.resolvedAt ?? d.now);
    if (latest === null || latest.choice === 'not_answered' || decision.choice !== 'not_answered') latest = decision;
  }
  return latest;
}

function toolBlock(
  d: ProjectionDraft,
  call: ToolCall,
  before: ToolUseBlock | undefined,
  overrides: Partial<ToolUseBlock>,
): ToolUseBlock {
  const fresh = { startedAt: d.now, decision: () => decisionFromInteractions(d, call.toolCallId) };
  return { ...toolCardOf(call, before, fresh), ...overrides };
}

function putToolRow(
  d: ProjectionDraft,
  turn: TurnRecord,
  toolUseId: string,
  tool: ToolUseBlock,
  existing: MessageRecord | undefined,
  result: ToolResultBlock | undefined = existing === undefined ? undefined : resultBlockOf(existing),
): MessageRecord {
  const content: ContentBlock[] = result === undefined ? [tool] : [tool, result];
  const status: MessageRecord['status'] = tool.status === 'running' ? 'streaming' : 'complete';
  const row: MessageRecord =
    existing === undefined
      ? newRow(d, turn.id, 'assistant', content, status, { toolUseId })
      : { ...existing, content, status, updatedAt: d.now };
  d.putMessage(row);
  return row;
}

/** A `run_in_background` command keeps running after its call completed: it is background work of the session. */
function trackBackgroundCommand(d: ProjectionDraft, row: MessageRecord, tool: ToolUseBlock): void {
  if (tool.background === null || tool.callType !== 'command') return;
  const tasks = d.session.backgroundTasks;
  const index = tasks.findIndex((task) => task.tool_use_id === tool.id);
  const running = !endedTaskStatuses.has(tool.background.status);
  if (index === -1 && !running) return;
  const entry: BackgroundTask = {
    tool_use_id: tool.id,
    turnId: row.turnId,
    kind: 'command',
    taskId: tool.background.taskId,
    description: typeof tool.input.description === 'string' ? tool.input.description : null,
    status: tool.background.status,
    startedAt: index === -1 ? d.now : tasks[index]!.startedAt,
  };
  const next = running
    ? index === -1
      ? [...tasks, entry]
      : tasks.map((task, i) => (i === index ? entry : task))
    : tasks.filter((_, i) => i !== index);
  setBackground(d, next, row.turnId);
}

export function agentTask(d: ProjectionDraft, task: DelegatedTask): void {
  const toolUseId = task.toolCallId || task.parentToolUseId;
  const row = d.toolRow(toolUseId);
  if (row === undefined) {
    d.dropped = 'a delegated task without its Agent call';
    return;
  }
  const tool = toolBlockOf(row)!;
  const before = tool.agentTask;
  const next: AgentTask = {
    taskId: task.taskId ?? before?.taskId ?? null,
    agentId: task.agentId ?? before?.agentId ?? null,
    status: task.status,
    description: task.description ?? before?.description ?? null,
    summary: task.summary ?? before?.summary ?? null,
    lastToolName: task.lastToolName ?? before?.lastToolName ?? null,
    usage: isRecord(task.usage) ? task.usage : (before?.usage ?? null),
    updatedAt: d.now,
  };
  if (before !== null && JSON.stringify({ ...before, updatedAt: 0 }) === JSON.stringify({ ...next, updatedAt: 0 })) {
    return;
  }
  const updated: ToolUseBlock = { ...tool, agentTask: next };
  const stored: MessageRecord = {
    ...row,
    content: row.content.map((block) => (block.type === 'tool_use' ? updated : block)),
    updatedAt: d.now,
  };
  d.putMessage(stored);
  d.emit({
    type: 'agent_task',
    data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool_use_id: toolUseId, task: next },
  });
  const tasks = d.session.backgroundTasks;
  const index = tasks.findIndex((entry) => entry.tool_use_id === toolUseId);
  if (endedTaskStatuses.has(next.status)) {
    if (index !== -1)
      setBackground(
        d,
        tasks.filter((_, i) => i !== index),
        row.turnId,
      );
    closeSubagentCalls(d, toolUseId, `the delegated task ended (${next.status})`);
    return;
  }
  const entry: BackgroundTask = {
    tool_use_id: toolUseId,
    turnId: row.turnId,
    kind: 'agent',
    taskId: next.taskId,
    description: next.description,
    status: next.status,
    startedAt: index === -1 ? d.now : tasks[index]!.startedAt,
  };
  if (index !== -1 && JSON.stringify(tasks[index]) === JSON.stringify(entry)) return;
  setBackground(d, index === -1 ? [...tasks, entry] : tasks.map((t, i) => (i === index ? entry : t)), row.turnId);
}

function setBackground(d: ProjectionDraft, tasks: BackgroundTask[], turnId: string | null): void {
  d.patchSession({ backgroundTasks: tasks });
  d.emit({ type: 'background_tasks', data: { session_id: d.sessionId, turnId, tasks } });
}

/**
 * No background work runs any more: every entry goes, its call says it ended (`ended`: `completed`
 * when the sidecar reports nothing running, `stopped` when the sidecar or the host went away), and
 * calls its subagents left open get their result.
 */
export function clearBackground(d: ProjectionDraft, reason: string, ended: 'completed' | 'stopped'): void {
  const tasks = d.session.backgroundTasks;
  for (const entry of tasks) endBackgroundCall(d, entry, ended);
  if (tasks.length > 0) setBackground(d, [], null);
  for (const row of [...d.allMessages()]) {
    const tool = toolBlockOf(row);
    if (
      tool !== undefined &&
      tool.status === 'running' &&
      isTerminalTurn(d.turn(row.turnId) ?? { status: 'completed' })
    ) {
      synthesize(d, row, reason);
    }
  }
}

/**
 * The call of background work that ended without saying how: a command's `background` or an Agent
 * call's task still said `running` (and every client showed it running) after the work was gone.
 */
function endBackgroundCall(d: ProjectionDraft, entry: BackgroundTask, status: 'completed' | 'stopped'): void {
  const row = d.toolRow(entry.tool_use_id);
  const tool = row === undefined ? undefined : toolBlockOf(row);
  if (row === undefined || tool === undefined) return;
  const put = (updated: ToolUseBlock): void =>
    d.putMessage({
      ...row,
      content: row.content.map((block) => (block.type === 'tool_use' ? updated : block)),
      updatedAt: d.now,
    });
  if (tool.background !== null && !endedTaskStatuses.has(tool.background.status)) {
    const updated: ToolUseBlock = { ...tool, background: { ...tool.background, status } };
    put(updated);
    d.emit({
      type: 'tool_use',
      data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool: updated },
    });
  } else if (tool.agentTask !== null && !endedTaskStatuses.has(tool.agentTask.status)) {
    const task: AgentTask = { ...tool.agentTask, status, updatedAt: d.now };
    put({ ...tool, agentTask: task });
    d.emit({
      type: 'agent_task',
      data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, tool_use_id: tool.id, task },
    });
  }
}

/** Open calls a subagent made under `agentToolUseId` end with a synthesized result. */
function closeSubagentCalls(d: ProjectionDraft, agentToolUseId: string, reason: string): void {
  for (const row of [...d.allMessages()]) {
    const tool = toolBlockOf(row);
    if (tool?.status === 'running' && tool.parentToolUseId === agentToolUseId) synthesize(d, row, reason);
  }
}

/**
 * A call left open ends with the host's own error result. `outcome`: `canceled` when its turn was stopped,
 * else `stopped`; a call that timed out stays `timed_out`.
 */
export function synthesize(
  d: ProjectionDraft,
  row: MessageRecord,
  reason: string,
  outcome: 'canceled' | 'stopped' = 'stopped',
): void {
  const tool = toolBlockOf(row)!;
  const result = synthesizedResult(tool.id, reason);
  const ended: ToolUseBlock = {
    ...tool,
    status: 'failed',
    endedAt: tool.endedAt ?? d.now,
    outcome: tool.outcome === 'timed_out' ? 'timed_out' : outcome,
  };
  const stored: MessageRecord = { ...row, content: [ended, result], status: 'complete', updatedAt: d.now };
  d.putMessage(stored);
  emitToolResult(d, row, tool.id, 'failed', result, ended);
}

function emitToolResult(
  d: ProjectionDraft,
  row: MessageRecord,
  toolUseId: string,
  status: 'completed' | 'failed',
  result: ToolResultBlock,
  tool: ToolUseBlock,
): void {
  d.emit({
    type: 'tool_result',
    data: {
      session_id: d.sessionId,
      turnId: row.turnId,
      messageId: row.id,
      tool_use_id: toolUseId,
      status,
      result,
      tool,
    },
  });
}

function sameResult(a: ToolResultBlock, b: ToolResultBlock): boolean {
  return a.resultSource === b.resultSource && a.is_error === b.is_error && a.content === b.content;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
