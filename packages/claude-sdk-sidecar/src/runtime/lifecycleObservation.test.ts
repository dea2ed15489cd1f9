import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import {
  apiRetry,
  assistantText,
  backgroundTasksChanged,
  errorResult,
  promptEcho,
  sessionIdle,
  successResult,
  taskNotificationSystem,
  taskNotificationUser,
  textDelta,
} from '../testing/sdkMessageBuilders.ts';
import { lifecycleObservation } from './lifecycleObservation.ts';

function nested(message: SDKMessage): SDKMessage {
  return { ...message, parent_tool_use_id: 'toolu_agent' } as SDKMessage;
}

test('ordinary turn output and prompt echoes are not observed', () => {
  assert.equal(lifecycleObservation(textDelta('hi'), 't1'), undefined);
  assert.equal(lifecycleObservation(assistantText('answer'), 't1'), undefined);
  assert.equal(lifecycleObservation(promptEcho('uuid-1'), 't1'), undefined);
  assert.equal(lifecycleObservation(nested(assistantText('child')), undefined), undefined, 'sub-agent output');
});

test('a root assistant message with no active turn is a continuation candidate', () => {
  assert.deepEqual(lifecycleObservation(assistantText('follow-up'), undefined), {
    sdkMessageType: 'assistant',
    activeTurnIdBefore: '',
    rootContinuationCandidate: true,
  });
});

test('a root assistant message while a continuation is awaited is observed with the awaiting turn', () => {
  assert.deepEqual(lifecycleObservation(assistantText('follow-up'), 'synthetic-1', true), {
    sdkMessageType: 'assistant',
    activeTurnIdBefore: 'synthetic-1',
    rootContinuationCandidate: true,
  });
  assert.equal(lifecycleObservation(assistantText('answer'), 't1', false), undefined, 'not once it started');
});

test('an assistant error travels as its enum, never with the content', () => {
  const observed = lifecycleObservation(assistantText('secret text', { error: 'rate_limit' }), undefined);
  assert.equal(observed?.sdkAssistantError, 'rate_limit');
  assert.ok(!JSON.stringify(observed).includes('secret text'));
});

test('every result is observed, with its error status and origin', () => {
  assert.deepEqual(lifecycleObservation(successResult(), 't1'), {
    sdkMessageType: 'result',
    sdkMessageSubtype: 'success',
    activeTurnIdBefore: 't1',
    sdkResultIsError: false,
  });
  const connectionLost = lifecycleObservation(
    errorResult(['socket closed'], { api_error_status: null, origin: { kind: 'task-notification' } }),
    undefined,
  );
  assert.deepEqual(connectionLost, {
    sdkMessageType: 'result',
    sdkMessageSubtype: 'error_during_execution',
    activeTurnIdBefore: '',
    taskNotification: true,
    sdkMessageOrigin: 'task-notification',
    sdkResultIsError: true,
    sdkConnectionError: true,
  });
  assert.equal(lifecycleObservation(errorResult(['401'], { api_error_status: 401 }), 't1')?.sdkApiErrorStatus, 401);
});

test('api_retry carries its attempt, budget, delay and status', () => {
  assert.deepEqual(lifecycleObservation(apiRetry(529, 'overloaded'), 't1'), {
    sdkMessageType: 'system',
    sdkMessageSubtype: 'api_retry',
    activeTurnIdBefore: 't1',
    apiRetry: true,
    sdkApiErrorStatus: 529,
    sdkRetryAttempt: 1,
    sdkMaxRetries: 10,
    sdkRetryDelayMs: 500,
    sdkAssistantError: 'overloaded',
  });
  assert.equal(lifecycleObservation(apiRetry(null), 't1')?.sdkConnectionError, true);
});

test('task edges, background levels, session state and task-notification prompts are observed', () => {
  assert.deepEqual(lifecycleObservation(taskNotificationSystem('task-1', 'completed'), undefined), {
    sdkMessageType: 'system',
    sdkMessageSubtype: 'task_notification',
    activeTurnIdBefore: '',
    taskId: 'task-1',
    status: 'completed',
  });
  assert.equal(
    lifecycleObservation(backgroundTasksChanged(['task-1', 'local_bash']), 't1')?.sdkMessageSubtype,
    'background_tasks_changed',
  );
  assert.equal(lifecycleObservation(sessionIdle(), undefined)?.state, 'idle');
  assert.deepEqual(lifecycleObservation(taskNotificationUser('uuid-2'), undefined), {
    sdkMessageType: 'user',
    activeTurnIdBefore: '',
    taskNotification: true,
  });
});
