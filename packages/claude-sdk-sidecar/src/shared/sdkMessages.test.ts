import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import {
  assistantText,
  promptEcho,
  queuedCommandEcho,
  syntheticUser,
  taskNotificationUser,
  toolResultUser,
} from '../testing/sdkMessageBuilders.ts';
import { durableCheckpointUuid, isTaskNotification, rootPromptEcho } from './sdkMessages.ts';

test('a root prompt echo carries its own uuid as both identity and correlation', () => {
  assert.deepEqual(rootPromptEcho(promptEcho('u1')), { providerTurnId: 'u1', correlationId: 'u1' });
});

test('a queued_command attachment maps its source uuid to the rewritten uuid', () => {
  assert.deepEqual(rootPromptEcho(queuedCommandEcho('new', 'chosen')), {
    providerTurnId: 'new',
    correlationId: 'chosen',
  });
});

test('tool results, task notifications, synthetic, coordinator and nested messages are never prompt echoes', () => {
  const coordinator = { ...promptEcho('c1'), origin: { kind: 'coordinator' } } as SDKMessage;
  const nested = { ...promptEcho('n1'), parent_tool_use_id: 'toolu_parent' } as SDKMessage;
  const notificationAttachment = {
    ...queuedCommandEcho('a1', 'chosen'),
    attachment: { type: 'queued_command', source_uuid: 'chosen', commandMode: 'task-notification' },
  } as unknown as SDKMessage;
  for (const message of [
    toolResultUser('t1'),
    taskNotificationUser('t2'),
    syntheticUser('t3'),
    coordinator,
    nested,
    notificationAttachment,
    assistantText('not a user'),
  ]) {
    assert.equal(rootPromptEcho(message), undefined);
  }
});

test('task notifications are recognised by text, origin or attachment mode', () => {
  assert.equal(isTaskNotification(taskNotificationUser('x')), true);
  assert.equal(isTaskNotification({ ...promptEcho('y'), origin: { kind: 'task-notification' } } as SDKMessage), true);
  assert.equal(isTaskNotification(promptEcho('z')), false);
});

test('only root user and assistant rows are durable checkpoints', () => {
  assert.equal(durableCheckpointUuid(toolResultUser('r1')), 'r1');
  const nested = { ...assistantText('n'), parent_tool_use_id: 'toolu_1' } as SDKMessage;
  assert.equal(durableCheckpointUuid(nested), undefined);
  assert.equal(
    durableCheckpointUuid({ type: 'system', subtype: 'session_state_changed', uuid: 's1' } as unknown as SDKMessage),
    undefined,
  );
});
