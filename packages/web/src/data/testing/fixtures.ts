import type {
  Interaction,
  MessageView,
  SessionDetail,
  SessionEvent,
  SessionEventPayload,
  SessionEventType,
  SessionSnapshot,
  SessionSummary,
  Task,
  ToolResultBlock,
  ToolUseBlock,
  TurnView,
} from '@outrigger/host-api';

/*
 * Builders of contract-shaped objects for tests and the fixture host: each fills every required
 * field with a plausible value and takes overrides, so a test states only what it is about.
 */

export const T0 = 1_760_000_000_000;

export function summary(overrides: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id: 's1',
    title: 'New session',
    cwd: '/work/project',
    status: 'idle',
    closed: false,
    archivedAt: null,
    needsInputCount: 0,
    runningTurnId: null,
    runningTurnStartedAt: null,
    queuePaused: false,
    lastError: null,
    model: 'default',
    permissionMode: 'default',
    forkedFrom: null,
    createdAt: T0,
    updatedAt: T0,
    lastActivityAt: T0,
    ...overrides,
  };
}

export function detail(overrides: Partial<SessionDetail> = {}): SessionDetail {
  return {
    ...summary(overrides),
    providerSessionId: 'p-1',
    settings: { model: 'default', permissionMode: 'default', planMode: false, effort: null },
    effectiveModel: 'claude-sonnet-4-5',
    configOptions: [],
    usage: { contextWindow: null, inputTokens: 0, outputTokens: 0, totalCostUsd: null },
    worktree: null,
    terminalCommand: 'cd /work/project && claude --resume p-1',
    continuedFrom: null,
    ...overrides,
  };
}

export function turn(overrides: Partial<TurnView> & { id: string }): TurnView {
  return {
    session_id: 's1',
    kind: 'user',
    status: 'completed',
    prompt: 'hello',
    clientMessageId: null,
    providerTurnId: null,
    stopReason: 'end_turn',
    error: null,
    cancelDisposition: null,
    usage: null,
    createdAt: T0,
    startedAt: T0,
    endedAt: T0 + 1000,
    ...overrides,
  };
}

export function row(overrides: Partial<MessageView> & { id: string }): MessageView {
  return {
    session_id: 's1',
    turnId: 't1',
    position: 0,
    role: 'assistant',
    status: 'complete',
    content: [{ type: 'text', text: '' }],
    noticeKind: null,
    steer: false,
    clientMessageId: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function userRow(id: string, text: string, overrides: Partial<MessageView> = {}): MessageView {
  return row({ id, role: 'user', content: [{ type: 'text', text }], ...overrides });
}

export function tool(overrides: Partial<ToolUseBlock> & { id: string }): ToolUseBlock {
  return {
    type: 'tool_use',
    name: 'Bash',
    callType: 'command',
    input: { command: 'ls' },
    status: 'running',
    parentToolUseId: null,
    locations: [],
    fileChange: null,
    agentTask: null,
    background: null,
    output: null,
    startedAt: T0,
    endedAt: null,
    outcome: null,
    decision: null,
    elapsedSeconds: null,
    ...overrides,
  };
}

export function result(
  toolUseId: string,
  resultSource: ToolResultBlock['resultSource'],
  content: string,
  overrides: Partial<ToolResultBlock> = {},
): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content,
    is_error: false,
    resultSource,
    truncated: false,
    length: content.length,
    ...overrides,
  };
}

export function interaction(overrides: Partial<Interaction> & { requestId: string }): Interaction {
  return {
    session_id: 's1',
    turnId: 't1',
    kind: 'approval',
    toolName: 'Bash',
    tool_use_id: 'tu1',
    input: { command: 'rm -rf build' },
    options: [
      { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
      { kind: 'allow_always', name: 'Allow for this session', optionId: 'allow_always' },
      { kind: 'reject_once', name: 'Deny', optionId: 'reject' },
    ],
    agentId: null,
    parentToolUseId: null,
    status: 'pending',
    answer: null,
    resolution: null,
    createdAt: T0,
    resolvedAt: null,
    ...overrides,
  };
}

export function task(overrides: Partial<Task> & { id: string }): Task {
  return {
    session_id: 's1',
    title: 'A task',
    status: 'pending',
    description: null,
    sort_order: 0,
    source: 'user',
    created_at: T0,
    updated_at: T0,
    ...overrides,
  };
}

export function snapshot(overrides: Partial<SessionSnapshot> = {}): SessionSnapshot {
  return {
    session: detail(),
    lastSeq: 0,
    openTurn: null,
    pendingInteractions: [],
    queuedPrompts: [],
    backgroundTasks: [],
    tasks: [],
    messages: { messages: [], turns: [], hasMore: false },
    ...overrides,
  };
}

type PayloadFields<T extends SessionEventType> = Omit<SessionEventPayload<T>, 'seq' | 'session_id'> & {
  session_id?: string;
};

/** One session event with its seq; `session_id` defaults to `s1`. */
export function ev<T extends SessionEventType>(type: T, seq: number, data: PayloadFields<T>): SessionEvent {
  return { type, data: { session_id: 's1', ...data, seq } } as unknown as SessionEvent;
}
