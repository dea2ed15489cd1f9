import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { messageUuid } from '../shared/sdkMessages.ts';
import {
  assistantText,
  promptEcho,
  sessionIdle,
  streamEvent,
  successResult,
  taskNotificationUser,
  textDelta,
} from '../testing/sdkMessageBuilders.ts';
import { CanceledTailQuarantine } from './canceledTailQuarantine.ts';

const CURRENT = 'current-prompt';

function quarantine(): CanceledTailQuarantine {
  return new CanceledTailQuarantine((message) => messageUuid(message) === CURRENT);
}

function system(subtype: string, fields: Record<string, unknown> = {}): SDKMessage {
  return { type: 'system', subtype, uuid: `${subtype}-uuid`, session_id: 's', ...fields } as unknown as SDKMessage;
}

function queuedNotification(): SDKMessage {
  return {
    type: 'attachment',
    uuid: 'queued-uuid',
    parent_tool_use_id: null,
    session_id: 's',
    attachment: { type: 'queued_command', commandMode: 'task-notification', prompt: '<task-notification/>' },
  } as unknown as SDKMessage;
}

/** Which of the messages the quarantine lets through, by label. */
function admitted(filter: CanceledTailQuarantine, messages: [string, SDKMessage][]): string[] {
  return messages.filter(([, message]) => filter.admits(message)).map(([label]) => label);
}

test('the canceled run tail before the new prompt echo is dropped, the new run passes and clears it', () => {
  const filter = quarantine();
  const passed = admitted(filter, [
    ['task_updated', system('task_updated', { task_id: 'b1', patch: { status: 'killed' } })],
    ['background_tasks_changed', system('background_tasks_changed', { tasks: [] })],
    ['notification text', taskNotificationUser('n1')],
    ['notification attachment', queuedNotification()],
    ['follow-up delta', textDelta('the background job finished')],
    ['follow-up answer', assistantText('the background job finished')],
    ['follow-up result', successResult()],
    ['stray result', successResult()],
    ['idle', sessionIdle()],
    ['echo', promptEcho(CURRENT)],
    ['delta', textDelta('new answer')],
    ['answer', assistantText('new answer')],
    ['result', successResult()],
  ]);
  assert.deepEqual(passed, ['idle', 'echo', 'delta', 'answer', 'result']);
  assert.equal(filter.cleared, true);
  assert.equal(
    filter.admits(system('task_started', { task_id: 'b2' })),
    true,
    'once cleared, task edges are the new run',
  );
});

test('without a tail, model output before the echo passes (the echo may be missing); a result needs the echo', () => {
  const filter = quarantine();
  assert.deepEqual(
    admitted(filter, [
      ['delta', streamEvent({ type: 'message_start', message: { id: 'm1' } })],
      ['early result', successResult()],
    ]),
    ['delta'],
  );
  assert.equal(filter.cleared, false);
});

test('after the echo a task-notification result is still the old tail; the new answer clears the quarantine', () => {
  const filter = quarantine();
  const passed = admitted(filter, [
    ['echo', promptEcho(CURRENT)],
    ['notification attachment', queuedNotification()],
    ['notification result', successResult({ origin: { kind: 'task-notification' } })],
    ['answer', assistantText('new answer')],
    ['notification after clearing', taskNotificationUser('n2')],
  ]);
  assert.deepEqual(passed, ['echo', 'answer', 'notification after clearing']);
});

test('an echo of some other prompt does not open the quarantine', () => {
  const filter = quarantine();
  assert.deepEqual(
    admitted(filter, [
      ['other echo', promptEcho('other-prompt')],
      ['result', successResult()],
    ]),
    ['other echo'],
  );
  assert.equal(filter.cleared, false);
});
