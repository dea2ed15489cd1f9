import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventPayloadSchemas, type SidecarEventPayload, type SidecarEventType, sidecarEventTypes } from './index.ts';
import { isTurnTerminalEventType } from './turn.ts';

const resumeCursor: SidecarEventPayload<'session_state'>['resumeCursor'] = {
  kind: 'claude-agent-sdk',
  version: 1,
  resume: 'p1',
  resumeSessionAt: 'a9',
  turnCount: 2,
};
const session: SidecarEventPayload<'session_started'> = {
  providerSessionId: 'p1',
  model: 'claude-sonnet',
  configOptions: [
    {
      id: 'model',
      name: 'Model',
      description: 'AI model to use',
      category: 'model',
      type: 'select',
      currentValue: 'default',
      effectiveValue: 'claude-sonnet',
      options: [{ value: 'default', name: 'Default', description: 'Recommended' }],
    },
  ],
  resumeCursor,
};
const toolCall: SidecarEventPayload<'tool_completed'> = {
  turnId: 't1',
  toolCallId: 'toolu_1',
  callId: 'toolu_1',
  toolName: 'Edit',
  callType: 'file_change',
  name: 'Edit',
  status: 'completed',
  input: { file_path: '/repo/a.ts', toolName: 'Edit' },
  locations: [{ path: '/repo/a.ts' }],
  metadata: { adapter: 'claude-agent-sdk', toolName: 'Edit' },
  content: [{ type: 'file_change', path: '/repo/a.ts' }],
  output: 'ok',
};
const task: SidecarEventPayload<'task_started'> = {
  turnId: 't1',
  parentToolUseId: 'toolu_2',
  toolCallId: 'toolu_2',
  callId: 'toolu_2',
  taskId: 'task-1',
  status: 'running',
  description: 'Explore',
  input: { description: 'Explore' },
  metadata: {
    adapter: 'claude-agent-sdk',
    parentToolUseId: 'toolu_2',
    async: true,
    subagentAsync: true,
    taskStatus: 'running',
    subagentStatus: 'running',
  },
};
const background: SidecarEventPayload<'background_tasks_changed'> = {
  turnId: 't1',
  runningCount: 0,
  backgroundTasksObservedCount: 1,
  backgroundTasksRunningCount: 0,
  backgroundTasksNoLongerLiveCount: 1,
  delegatedTasksKnownCount: 1,
  delegatedTasksRunningCount: 0,
  delegatedTasksCompletedCount: 1,
  delegatedTasksFailedCount: 0,
  delegatedTasksStoppedCount: 0,
};
const interaction: SidecarEventPayload<'approval_requested'> = {
  turnId: 't1',
  requestId: 'req-1',
  toolCallId: 'test-approval-tool',
  toolName: 'Bash',
  input: { command: 'touch approval.txt' },
  options: [
    { kind: 'allow_always', name: 'Allow for session', optionId: 'allow_always' },
    { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
    { kind: 'reject_once', name: 'Reject', optionId: 'reject' },
  ],
  toolCall: { toolCallId: 'test-approval-tool', name: 'Bash', title: 'Bash', toolName: 'Bash', input: {} },
};
const resolved = { turnId: 't1', requestId: 'req-1', action: 'allow', optionId: 'allow', payload: {} };
const delta = { turnId: 't1', messageId: 'claude-sdk:assistant:m:live:1', content: 'Echo', snapshot: 'Echo' };
const completed = { turnId: 't1', messageId: 'claude-sdk:assistant:m:live:1', content: 'Echo: hi' };

/** One payload per event type, shaped as reference §2.2 describes it. */
const samples: { [T in SidecarEventType]: SidecarEventPayload<T> } = {
  session_started: session,
  session_state: { providerSessionId: 'p1', resumeCursor },
  session_title_updated: { providerSessionId: 'p1', title: 'Fix the build' },
  commands_updated: {
    providerSessionId: 'p1',
    commands: [{ name: 'mcp:search', description: 'Search', input: { hint: '<query>' } }],
  },
  speed_updated: { state: 'on', speed: 'fast' },
  sdk_lifecycle_observed: {
    sdkMessageType: 'system',
    sdkMessageSubtype: 'task_started',
    activeTurnIdBefore: 't1',
    taskId: 'task-1',
    sdkApiErrorStatus: null,
  },
  error: { error: 'unsupported sidecar protocol version 9' },
  usage_updated: {
    turnId: 't1',
    contextWindow: { usedTokens: 1200, totalTokens: 200000, compactsAutomatically: true },
  },
  provider_turn_identity_resolved: {
    turnId: 't1',
    providerTurnId: 'u1',
    turnOrigin: 'goal_arm',
    sourceGoalRevision: 2,
  },
  provider_turn_checkpoint: { turnId: 't1', providerTurnId: 'u1', providerCheckpointMessageId: 'a1' },
  turn_started: { turnId: 'synthetic-1', synthetic: true },
  turn_completed: { turnId: 't1', providerTurnId: 'u1', stopReason: 'end_turn' },
  turn_failed: {
    turnId: 't1',
    error: 'Invalid API key',
    code: 'authentication_failed',
    apiErrorStatus: 401,
    dispatchDisposition: 'rejected',
  },
  turn_canceled: { turnId: 't1', providerTurnId: 'u1' },
  continuation_delayed: { turnId: 'synthetic-1', waitedMs: 30000 },
  guidance_interrupted: { turnId: 't1' },
  turn_stalled: { turnId: 't1', silentMs: 15_000 },
  goal_command_started: { turnId: 't2', operationId: 'op', revision: 1, repairEpoch: 0, action: 'set' },
  goal_command_superseded: { turnId: 't2', operationId: 'op', revision: 1, action: 'set', supersededByRevision: 2 },
  goal_command_canceled: {
    turnId: 't2',
    operationId: 'op',
    revision: 1,
    repairEpoch: 0,
    action: 'set',
    reason: 'cancel_requested',
  },
  goal_observed: {
    turnId: 't2',
    action: 'set',
    source: 'active_goal',
    updateType: 'thread_goal_update',
    goal: { objective: 'ship it', status: 'active', iterations: 1 },
  },
  assistant_delta: delta,
  thinking_delta: { ...delta, messageId: 'claude-sdk:thinking:m:live:1' },
  assistant_completed: completed,
  thinking_completed: completed,
  assistant_failed: completed,
  tool_started: { ...toolCall, status: 'streaming' },
  tool_updated: toolCall,
  tool_completed: toolCall,
  tool_failed: { ...toolCall, status: 'failed', error: 'permission denied' },
  task_started: task,
  task_progress: { ...task, lastToolName: 'Grep' },
  task_completed: { ...task, status: 'completed', summary: 'done' },
  task_result_updated: task,
  plan_updated: { turnId: 't1', entries: [{ id: '1', content: 'Inspect', status: 'in_progress' }] },
  background_tasks_changed: background,
  background_tasks_quiesced: background,
  approval_requested: interaction,
  user_input_requested: { ...interaction, toolName: 'AskUserQuestion', options: [] },
  approval_resolved: resolved,
  user_input_resolved: resolved,
  compact_started: { turnId: 't1', content: 'Compacting...' },
  compact_completed: { turnId: 't1', content: 'Compacting completed.' },
  compact_failed: { turnId: 't1', reason: 'too long', content: 'Compacting failed: too long' },
};

describe('event payload schemas', () => {
  test('accept the reference shape of every event', () => {
    assert.equal(sidecarEventTypes.length, Object.keys(samples).length);
    for (const type of sidecarEventTypes) {
      const result = eventPayloadSchemas[type].safeParse(samples[type]);
      assert.ok(result.success, `${type}: ${result.error?.message}`);
    }
  });

  test('pass additive fields from newer sidecars through', () => {
    const result = eventPayloadSchemas.turn_completed.safeParse({ turnId: 't', stopReason: 'end_turn', future: 1 });
    assert.ok(result.success);
    assert.equal(Reflect.get(result.data, 'future'), 1);
  });

  test('reject payloads missing a required field or with an unknown enum value', () => {
    const rejected: [SidecarEventType, unknown][] = [
      ['turn_completed', { turnId: 't' }],
      ['turn_completed', { turnId: 't', stopReason: 'done' }],
      ['provider_turn_identity_resolved', { turnId: 't' }],
      ['provider_turn_checkpoint', { turnId: 't', providerTurnId: 'u' }],
      ['turn_failed', { turnId: 't' }],
      ['assistant_delta', { turnId: 't', messageId: 'm', content: 'x' }],
      ['tool_started', { ...toolCall, callType: 'shell' }],
      ['approval_requested', { ...interaction, requestId: undefined }],
      ['session_started', { providerSessionId: 'p' }],
      ['error', {}],
      ['goal_command_canceled', { ...samples.goal_command_canceled, reason: 'timeout' }],
      ['turn_canceled', undefined],
      ['turn_stalled', { turnId: 't' }],
    ];
    for (const [type, payload] of rejected) {
      assert.equal(eventPayloadSchemas[type].safeParse(payload).success, false, type);
    }
  });

  test('exactly the three turn terminals end a turn', () => {
    const terminals = sidecarEventTypes.filter(isTurnTerminalEventType);
    assert.deepEqual(terminals.sort(), ['turn_canceled', 'turn_completed', 'turn_failed']);
    assert.equal(isTurnTerminalEventType('error'), false);
  });
});
