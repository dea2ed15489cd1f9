import {
  type ContentBlock,
  compareTasks,
  type Interaction,
  type MessagesPage,
  type MessageView,
  type SessionEvent,
  type SessionEventPayload,
  type SessionSnapshot,
  type Task,
  type ToolResultBlock,
  type ToolUseBlock,
  type TurnView,
} from '@outrigger/host-api';
import { emptySessionState, type SessionViewState, type TurnState } from './sessionState.ts';
import { resultReplaces } from './toolResultRank.ts';

export type SessionAction =
  | { type: 'snapshot'; snapshot: SessionSnapshot }
  | { type: 'event'; event: SessionEvent; receivedAt: number }
  | { type: 'olderPage'; page: MessagesPage }
  | { type: 'taskSaved'; task: Task }
  | { type: 'taskDeleted'; taskId: string }
  | { type: 'interactionAnswered'; interaction: Interaction }
  | { type: 'noticeDismissed'; seq: number };

/**
 * The pure fold of a session's snapshot and stream into what its screen shows. Safe against
 * duplicates and replays (an event at or below the `lastSeq` watermark is ignored), against the
 * orders in which the host may legitimately emit things (a result before its call, a hook result
 * after the canonical one, text after `done`), and it gives the same state whether a client
 * watched from the start or loaded a snapshot and caught up.
 */
export function sessionReducer(state: SessionViewState, action: SessionAction): SessionViewState {
  switch (action.type) {
    case 'snapshot':
      return applySnapshot(state, action.snapshot);
    case 'event':
      if (action.event.data.session_id !== state.sessionId) return state;
      if (action.event.data.seq <= state.lastSeq) return state;
      return { ...applyEvent(state, action.event, action.receivedAt), lastSeq: action.event.data.seq };
    case 'olderPage':
      return applyOlderPage(state, action.page);
    case 'taskSaved':
      return { ...state, tasks: sortTasks(upsertBy(state.tasks, action.task, (task) => task.id)) };
    case 'taskDeleted':
      return { ...state, tasks: state.tasks.filter((task) => task.id !== action.taskId) };
    case 'interactionAnswered':
      return putInteraction(state, action.interaction);
    case 'noticeDismissed':
      return { ...state, notices: state.notices.filter((notice) => notice.seq !== action.seq) };
  }
}

function applySnapshot(state: SessionViewState, snapshot: SessionSnapshot): SessionViewState {
  // A snapshot older than what the stream already brought would take the view back in time.
  if (state.session !== null && snapshot.lastSeq < state.lastSeq) return state;
  const next = emptySessionState(state.sessionId);
  const rows: Record<string, MessageView> = {};
  const order: string[] = [];
  for (const message of snapshot.messages.messages) {
    if (rows[message.id] === undefined) order.push(message.id);
    rows[message.id] = message;
  }
  const turns: Record<string, TurnState> = {};
  for (const turn of snapshot.messages.turns) turns[turn.id] = turnStateOf(turn);
  if (snapshot.openTurn !== null) turns[snapshot.openTurn.id] = turnStateOf(snapshot.openTurn);
  const interactions: Record<string, Interaction> = {};
  for (const interaction of snapshot.pendingInteractions) interactions[interaction.requestId] = interaction;
  return {
    ...next,
    session: snapshot.session,
    lastSeq: snapshot.lastSeq,
    rows,
    order,
    hasOlder: snapshot.messages.hasMore,
    turns,
    interactions,
    tasks: sortTasks(snapshot.tasks),
    queuedPrompts: snapshot.queuedPrompts,
    backgroundTasks: snapshot.backgroundTasks,
  };
}

function applyOlderPage(state: SessionViewState, page: MessagesPage): SessionViewState {
  const rows = { ...state.rows };
  const older: string[] = [];
  for (const message of page.messages) {
    if (rows[message.id] !== undefined) continue;
    rows[message.id] = message;
    older.push(message.id);
  }
  const turns = { ...state.turns };
  for (const turn of page.turns) if (turns[turn.id] === undefined) turns[turn.id] = turnStateOf(turn);
  return { ...state, rows, order: [...older, ...state.order], turns, hasOlder: page.hasMore };
}

function applyEvent(state: SessionViewState, event: SessionEvent, receivedAt: number): SessionViewState {
  switch (event.type) {
    case 'text':
      return applyStreamed(state, event.data, 'text', receivedAt);
    case 'thinking':
      return applyStreamed(state, event.data, 'thinking', receivedAt);
    case 'tool_use':
      return clearStall(applyToolUse(state, event.data, receivedAt), event.data.turnId);
    case 'tool_result':
      return clearStall(applyToolResult(state, event.data, receivedAt), event.data.turnId);
    case 'tool_output':
      return updateTool(state, event.data.messageId, event.data.tool_use_id, event.data.turnId, receivedAt, (tool) =>
        tool.status === 'running' ? { ...tool, output: event.data.output } : tool,
      );
    case 'agent_task':
      return updateTool(state, event.data.messageId, event.data.tool_use_id, event.data.turnId, receivedAt, (tool) => ({
        ...tool,
        agentTask: event.data.task,
      }));
    case 'tool_timeout':
      return {
        ...state,
        toolTimeouts: { ...state.toolTimeouts, [event.data.tool_use_id]: event.data.elapsedSeconds },
      };
    case 'task_update':
      return applyTaskUpdate(state, event.data.tasks);
    case 'status':
      return withSession(state, (session) => ({
        ...session,
        status: event.data.status,
        closed: event.data.closed,
        needsInputCount: event.data.needsInputCount,
        runningTurnId: event.data.runningTurnId,
        // A host a version older leaves it out: not paused.
        queuePaused: event.data.queuePaused ?? false,
        lastError: event.data.lastError,
      }));
    case 'turn_started': {
      const started = withTurn(state, event.data.turnId, receivedAt, (turn) => ({
        ...turn,
        kind: event.data.kind,
        status: 'running',
        startedAt: turn.startedAt ?? receivedAt,
        prompt: turn.prompt ?? messageText(event.data.message),
        clientMessageId: turn.clientMessageId ?? event.data.message?.clientMessageId ?? null,
      }));
      const withRow = event.data.message === null ? started : putRow(started, event.data.message);
      return withSession(withRow, (session) => ({ ...session, runningTurnId: event.data.turnId }));
    }
    case 'user_message':
    case 'notice':
      return putRow(state, event.data.message);
    case 'result':
      return clearStall(
        withTurn(state, event.data.turnId, receivedAt, (turn) => ({
          ...turn,
          stopReason: event.data.stopReason,
          error: event.data.error ?? turn.error,
          usage: event.data.usage ?? turn.usage,
          durationMs: event.data.durationMs,
        })),
        event.data.turnId,
      );
    case 'turn_canceled':
      return withTurn(state, event.data.turnId, receivedAt, (turn) => ({
        ...turn,
        cancelDisposition: event.data.disposition ?? turn.cancelDisposition,
        cancelReason: event.data.reason,
      }));
    case 'done':
      return applyDone(state, event.data, receivedAt);
    case 'permission_request':
      return putInteraction(state, event.data.interaction);
    case 'permission_resolved': {
      const known = state.interactions[event.data.requestId];
      if (known === undefined) return state;
      return putInteraction(state, {
        ...known,
        status: event.data.status,
        resolution: event.data.resolution,
        answer: event.data.answer ?? known.answer,
        resolvedAt: known.resolvedAt ?? receivedAt,
      });
    }
    case 'tasks_changed':
      return { ...state, tasks: sortTasks(event.data.tasks) };
    case 'queue':
      return { ...state, queuedPrompts: event.data.queuedPrompts };
    case 'background_tasks':
      return { ...state, backgroundTasks: event.data.tasks };
    case 'turn_stalled':
      return { ...state, stalls: { ...state.stalls, [event.data.turnId]: event.data.silentMs } };
    case 'usage':
      return withSession(state, (session) => ({ ...session, usage: event.data.usage }));
    case 'title':
      return withSession(state, (session) => ({ ...session, title: event.data.title }));
    case 'settings':
      return withSession(state, (session) => ({
        ...session,
        settings: event.data.settings,
        model: event.data.settings.model,
        permissionMode: event.data.settings.permissionMode,
        effectiveModel: event.data.effectiveModel ?? session.effectiveModel,
        configOptions: event.data.configOptions ?? session.configOptions,
      }));
    case 'mode_changed':
      return withSession(state, (session) => ({
        ...session,
        permissionMode: event.data.permissionMode,
        settings: { ...session.settings, permissionMode: event.data.permissionMode, planMode: event.data.planMode },
      }));
    case 'error':
      return {
        ...state,
        notices: [
          ...state.notices,
          { seq: event.data.seq, turnId: event.data.turnId, code: event.data.code, message: event.data.message },
        ],
      };
    case 'worktree':
      return withSession(state, (session) => ({ ...session, worktree: event.data.worktree }));
    case 'checkpoint':
    case 'files_rewound':
      // Not part of the transcript: `ChangesStore` reloads the session's diffs from the host on them.
      return state;
  }
}

type StreamedPayload = SessionEventPayload<'text'> | SessionEventPayload<'thinking'>;

function applyStreamed(
  state: SessionViewState,
  data: StreamedPayload,
  kind: 'text' | 'thinking',
  receivedAt: number,
): SessionViewState {
  const existing = state.rows[data.messageId];
  const row = existing ?? newRow(state, data.messageId, data.turnId, receivedAt, [blockOf(kind, '')]);
  // A finished block takes no more deltas: a replayed delta must not grow the final text.
  if (existing !== undefined && existing.status !== 'streaming') return state;
  const current = streamedText(row);
  const text = data.final ? (data.text ?? current + data.delta) : current + data.delta;
  const status = data.interrupted ? 'interrupted' : data.final ? 'complete' : 'streaming';
  const updated: MessageView = { ...row, content: [blockOf(kind, text)], status, updatedAt: receivedAt };
  return clearStall(putRow(state, updated), data.turnId);
}

function applyToolUse(
  state: SessionViewState,
  data: SessionEventPayload<'tool_use'>,
  receivedAt: number,
): SessionViewState {
  const existing = state.rows[data.messageId];
  const result = existing === undefined ? undefined : resultOf(existing);
  // The call's status after a result is the result's; a late tool_use must not set it back to running.
  const tool: ToolUseBlock =
    result === undefined ? data.tool : { ...data.tool, status: toolOf(existing)?.status ?? data.tool.status };
  const content: ContentBlock[] = result === undefined ? [tool] : [tool, result];
  const row = existing ?? newRow(state, data.messageId, data.turnId, receivedAt, content);
  return putRow(state, { ...row, content, status: 'complete', updatedAt: receivedAt });
}

function applyToolResult(
  state: SessionViewState,
  data: SessionEventPayload<'tool_result'>,
  receivedAt: number,
): SessionViewState {
  const existing = state.rows[data.messageId];
  if (existing !== undefined && !resultReplaces(resultOf(existing), data.result)) {
    // The result lost the rank, but the stored call (its outcome, its decision) is still the host's word.
    if (data.tool === undefined) return state;
    const kept = resultOf(existing);
    return putRow(state, { ...existing, content: kept === undefined ? [data.tool] : [data.tool, kept] });
  }
  // The host's call after this result: its endedAt (the duration reads the same after a reload), outcome,
  // decision. An older host sends none: the status is the result's, the end the time it arrived.
  const tool: ToolUseBlock =
    data.tool === undefined
      ? { ...(toolOf(existing) ?? placeholderTool(data.tool_use_id, receivedAt)), status: data.status }
      : { ...data.tool };
  if (tool.endedAt === null) tool.endedAt = receivedAt;
  const row = existing ?? newRow(state, data.messageId, data.turnId, receivedAt, []);
  return putRow(state, { ...row, content: [tool, data.result], status: 'complete', updatedAt: receivedAt });
}

function updateTool(
  state: SessionViewState,
  messageId: string,
  toolUseId: string,
  turnId: string,
  receivedAt: number,
  change: (tool: ToolUseBlock) => ToolUseBlock,
): SessionViewState {
  const existing = state.rows[messageId];
  const tool = toolOf(existing) ?? placeholderTool(toolUseId, receivedAt);
  const result = existing === undefined ? undefined : resultOf(existing);
  const updatedTool = change(tool);
  const content: ContentBlock[] = result === undefined ? [updatedTool] : [updatedTool, result];
  const row = existing ?? newRow(state, messageId, turnId, receivedAt, content);
  return putRow(state, { ...row, content, updatedAt: receivedAt });
}

function applyTaskUpdate(state: SessionViewState, rows: readonly Task[]): SessionViewState {
  // The plan is replaced as a whole; user tasks are the person's and stay as they are.
  const sdkTasks = rows.filter((task) => task.source === 'sdk');
  let userTasks = state.tasks.filter((task) => task.source === 'user');
  for (const task of rows) if (task.source === 'user') userTasks = upsertBy(userTasks, task, (t) => t.id);
  return { ...state, tasks: sortTasks([...sdkTasks, ...userTasks]) };
}

function applyDone(state: SessionViewState, data: SessionEventPayload<'done'>, receivedAt: number): SessionViewState {
  const ended = withTurn(state, data.turnId, receivedAt, (turn) => ({
    ...turn,
    status: data.outcome,
    error: data.error ?? turn.error,
    endedAt: turn.endedAt ?? receivedAt,
  }));
  // Whatever was still streaming in this turn is over: finished if the turn completed, cut off otherwise.
  let rows: Record<string, MessageView> | undefined;
  for (const id of ended.order) {
    const row = (rows ?? ended.rows)[id];
    if (row === undefined || row.turnId !== data.turnId || row.status !== 'streaming') continue;
    rows ??= { ...ended.rows };
    rows[id] = { ...row, status: data.outcome === 'completed' ? 'complete' : 'interrupted', updatedAt: receivedAt };
  }
  const stalls = { ...ended.stalls };
  delete stalls[data.turnId];
  const cleared = { ...ended, rows: rows ?? ended.rows, stalls };
  return withSession(cleared, (session) =>
    session.runningTurnId === data.turnId ? { ...session, runningTurnId: null } : session,
  );
}

function putRow(state: SessionViewState, row: MessageView): SessionViewState {
  const known = state.rows[row.id] !== undefined;
  return {
    ...state,
    rows: { ...state.rows, [row.id]: row },
    order: known ? state.order : [...state.order, row.id],
  };
}

function putInteraction(state: SessionViewState, interaction: Interaction): SessionViewState {
  const known = state.interactions[interaction.requestId];
  // Once resolved, an interaction stays resolved: a replayed request must not reopen it.
  if (known !== undefined && known.status !== 'pending' && interaction.status === 'pending') return state;
  return { ...state, interactions: { ...state.interactions, [interaction.requestId]: interaction } };
}

function withSession(
  state: SessionViewState,
  change: (session: NonNullable<SessionViewState['session']>) => NonNullable<SessionViewState['session']>,
): SessionViewState {
  if (state.session === null) return state;
  return { ...state, session: change(state.session) };
}

function withTurn(
  state: SessionViewState,
  turnId: string,
  receivedAt: number,
  change: (turn: TurnState) => TurnState,
): SessionViewState {
  const turn = state.turns[turnId] ?? newTurn(state.sessionId, turnId, receivedAt);
  return { ...state, turns: { ...state.turns, [turnId]: change(turn) } };
}

function clearStall(state: SessionViewState, turnId: string): SessionViewState {
  if (state.stalls[turnId] === undefined) return state;
  const stalls = { ...state.stalls };
  delete stalls[turnId];
  return { ...state, stalls };
}

function newRow(
  state: SessionViewState,
  id: string,
  turnId: string,
  receivedAt: number,
  content: ContentBlock[],
): MessageView {
  let position = 0;
  for (const rowId of state.order) position = Math.max(position, (state.rows[rowId]?.position ?? 0) + 1);
  return {
    id,
    session_id: state.sessionId,
    turnId,
    position,
    role: 'assistant',
    status: 'streaming',
    content,
    noticeKind: null,
    steer: false,
    clientMessageId: null,
    createdAt: receivedAt,
    updatedAt: receivedAt,
  };
}

function newTurn(sessionId: string, turnId: string, receivedAt: number): TurnState {
  return turnStateOf({
    id: turnId,
    session_id: sessionId,
    kind: 'user',
    status: 'running',
    prompt: null,
    clientMessageId: null,
    providerTurnId: null,
    stopReason: null,
    error: null,
    cancelDisposition: null,
    usage: null,
    createdAt: receivedAt,
    startedAt: receivedAt,
    endedAt: null,
  });
}

function turnStateOf(turn: TurnView): TurnState {
  const durationMs = turn.startedAt !== null && turn.endedAt !== null ? turn.endedAt - turn.startedAt : null;
  return { ...turn, durationMs, cancelReason: null };
}

function placeholderTool(toolUseId: string, receivedAt: number): ToolUseBlock {
  return {
    type: 'tool_use',
    id: toolUseId,
    name: 'tool',
    callType: 'tool',
    input: {},
    status: 'running',
    parentToolUseId: null,
    locations: [],
    fileChange: null,
    agentTask: null,
    background: null,
    output: null,
    startedAt: receivedAt,
    endedAt: null,
    outcome: null,
    decision: null,
    elapsedSeconds: null,
  };
}

function blockOf(kind: 'text' | 'thinking', text: string): ContentBlock {
  return kind === 'text' ? { type: 'text', text } : { type: 'thinking', thinking: text };
}

function streamedText(row: MessageView): string {
  const block = row.content[0];
  if (block?.type === 'text') return block.text;
  if (block?.type === 'thinking') return block.thinking;
  return '';
}

export function toolOf(row: MessageView | undefined): ToolUseBlock | undefined {
  return row?.content.find((block): block is ToolUseBlock => block.type === 'tool_use');
}

export function resultOf(row: MessageView): ToolResultBlock | undefined {
  return row.content.find((block): block is ToolResultBlock => block.type === 'tool_result');
}

function messageText(message: MessageView | null): string | null {
  if (message === null) return null;
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function upsertBy<T>(items: readonly T[], item: T, key: (item: T) => string): T[] {
  const id = key(item);
  const index = items.findIndex((existing) => key(existing) === id);
  if (index === -1) return [...items, item];
  const next = [...items];
  next[index] = item;
  return next;
}

/** The host's order (`GET /api/tasks`), so a list folded from events shows as a reload would. */
function sortTasks(tasks: readonly Task[]): Task[] {
  return [...tasks].sort(compareTasks);
}
