import type { InteractionRecord, MessageRecord, SessionRecord, TaskRecord, TurnRecord } from './records.ts';

/*
 * Row builders for tests of the store, the event hub and the projection (and the runtime's, if it
 * likes): valid rows with every field set, overridable.
 */

export function testSession(id: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    title: `session ${id}`,
    titleSource: 'default',
    cwd: '/tmp/project',
    closed: false,
    status: 'idle',
    needsInputCount: 0,
    runningTurnId: null,
    runningTurnStartedAt: null,
    queuePaused: false,
    lastError: null,
    settings: { model: 'default', permissionMode: 'default', planMode: false, effort: null },
    effectiveModel: null,
    configOptions: [],
    slashCommands: [],
    providerSessionId: `provider-${id}`,
    resumeCursor: null,
    usage: { contextWindow: null, inputTokens: 0, outputTokens: 0, totalCostUsd: null },
    backgroundTasks: [],
    forkedFrom: null,
    continuedFrom: null,
    worktree: null,
    archivedAt: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    lastActivityAt: 1_000,
    ...overrides,
  };
}

export function testTurn(
  sessionId: string,
  id: string,
  ordinal: number,
  overrides: Partial<TurnRecord> = {},
): TurnRecord {
  return {
    id,
    sessionId,
    ordinal,
    kind: 'user',
    status: 'running',
    prompt: `prompt ${ordinal}`,
    input: [],
    clientMessageId: null,
    paused: false,
    providerTurnId: null,
    providerSessionId: null,
    checkpointMessageId: null,
    stopReason: null,
    error: null,
    cancelDisposition: null,
    usage: null,
    createdAt: 2_000 + ordinal,
    startedAt: 2_000 + ordinal,
    endedAt: null,
    ...overrides,
  };
}

export function testTextMessage(
  sessionId: string,
  turnId: string,
  position: number,
  text: string,
  overrides: Partial<MessageRecord> = {},
): MessageRecord {
  return {
    sessionId,
    id: `m-${position}`,
    turnId,
    position,
    role: 'assistant',
    status: 'complete',
    content: [{ type: 'text', text }],
    noticeKind: null,
    steer: false,
    clientMessageId: null,
    toolUseId: null,
    sourceMessageId: null,
    createdAt: 3_000 + position,
    updatedAt: 3_000 + position,
    ...overrides,
  };
}

export function testToolMessage(
  sessionId: string,
  turnId: string,
  position: number,
  toolUseId: string,
  result?: { content: string; source: 'hook' | 'canonical' | 'synthesized' },
): MessageRecord {
  return testTextMessage(sessionId, turnId, position, '', {
    id: `tool-${toolUseId}`,
    toolUseId,
    content: [
      {
        type: 'tool_use',
        id: toolUseId,
        name: 'Bash',
        callType: 'command',
        input: { command: 'ls' },
        status: result === undefined ? 'running' : 'completed',
        parentToolUseId: null,
        locations: [],
        fileChange: null,
        agentTask: null,
        background: null,
        output: null,
        startedAt: 3_000,
        endedAt: result === undefined ? null : 3_100,
        outcome: result === undefined ? null : 'completed',
        decision: null,
        elapsedSeconds: null,
      },
      ...(result === undefined
        ? []
        : [
            {
              type: 'tool_result' as const,
              tool_use_id: toolUseId,
              content: result.content,
              is_error: false,
              resultSource: result.source,
              truncated: false,
              length: result.content.length,
            },
          ]),
    ],
  });
}

export function testInteraction(
  sessionId: string,
  requestId: string,
  overrides: Partial<InteractionRecord> = {},
): InteractionRecord {
  return {
    requestId,
    session_id: sessionId,
    turnId: 't1',
    kind: 'approval',
    toolName: 'Bash',
    tool_use_id: 'tu',
    input: { command: 'ls' },
    options: [{ kind: 'allow_once', name: 'Allow', optionId: 'allow' }],
    agentId: null,
    parentToolUseId: null,
    status: 'pending',
    answer: null,
    resolution: null,
    createdAt: 7,
    resolvedAt: null,
    ...overrides,
  };
}

export function testUserTask(sessionId: string, id: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id,
    session_id: sessionId,
    title: 'mine',
    status: 'pending',
    description: null,
    sort_order: 0,
    source: 'user',
    created_at: 1,
    updated_at: 2,
    ...overrides,
  };
}
