import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { readTaskNotification } from './taskNotification.ts';

const sdk = (fields: Record<string, unknown>): SDKMessage => fields as unknown as SDKMessage;
const XML =
  '<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n<task-notification>\n<task-id>bni8ly3bt</task-id>\n' +
  '<tool-use-id>toolu_1</tool-use-id>\n<status>completed</status>\n<summary>done</summary>\n</task-notification>';

describe('readTaskNotification', () => {
  it('reads the system task_notification message', () => {
    assert.deepEqual(
      readTaskNotification(sdk({ type: 'system', subtype: 'task_notification', task_id: 't1', status: 'failed' })),
      {
        taskId: 't1',
        status: 'failed',
      },
    );
  });

  it('reads the XML of a root user message, as a string or text blocks', () => {
    const expected = { taskId: 'bni8ly3bt', status: 'completed' };
    assert.deepEqual(
      readTaskNotification(sdk({ type: 'user', parent_tool_use_id: null, message: { content: XML } })),
      expected,
    );
    assert.deepEqual(
      readTaskNotification(
        sdk({ type: 'user', parent_tool_use_id: null, message: { content: [{ type: 'text', text: XML }] } }),
      ),
      expected,
    );
  });

  it('reads a queued_command attachment in task-notification mode, with or without the XML', () => {
    const attachment = (prompt: unknown) =>
      sdk({ type: 'attachment', attachment: { type: 'queued_command', commandMode: 'task-notification', prompt } });
    assert.deepEqual(readTaskNotification(attachment(XML)), { taskId: 'bni8ly3bt', status: 'completed' });
    assert.deepEqual(readTaskNotification(attachment(undefined)), { taskId: undefined, status: undefined });
  });

  it('ignores other messages: plain prompts, subagent messages, other attachments and system subtypes', () => {
    for (const message of [
      sdk({ type: 'user', parent_tool_use_id: null, message: { content: 'hello' } }),
      sdk({ type: 'user', parent_tool_use_id: 'toolu_agent', message: { content: XML } }),
      sdk({ type: 'attachment', attachment: { type: 'queued_command', commandMode: 'prompt', prompt: XML } }),
      sdk({ type: 'system', subtype: 'task_updated', task_id: 't1', patch: { status: 'completed' } }),
      sdk({ type: 'assistant', parent_tool_use_id: null, message: { content: [{ type: 'text', text: XML }] } }),
    ]) {
      assert.equal(readTaskNotification(message), undefined);
    }
  });
});
