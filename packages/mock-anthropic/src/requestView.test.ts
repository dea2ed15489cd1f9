import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viewMessagesRequest } from './requestView.ts';

const reminder = '<system-reminder>\nAs you answer, keep the context in mind.\n</system-reminder>';

test('the first request: user text after a system-reminder, the trailing role:system entry skipped', () => {
  const view = viewMessagesRequest(
    {
      messages: [
        { role: 'user', content: [{ type: 'text', text: `${reminder}\nhello there` }] },
        { role: 'system', content: 'environment: linux' },
      ],
    },
    0,
  );
  assert.equal(view.lastUserText, 'hello there');
  assert.equal(view.isNewPrompt, true);
  assert.deepEqual(view.toolResults, []);
  assert.equal(view.taskNotification, undefined);
});

test('reminder and prompt in separate blocks, string content', () => {
  const blocks = viewMessagesRequest(
    {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: reminder },
            { type: 'text', text: 'second block' },
          ],
        },
      ],
    },
    0,
  );
  assert.equal(blocks.lastUserText, 'second block');
  const plain = viewMessagesRequest({ messages: [{ role: 'user', content: 'just a string' }] }, 3);
  assert.equal(plain.lastUserText, 'just a string');
  assert.equal(plain.index, 3);
});

test('tool results are named from earlier tool_use blocks and keep the prompt of the turn', () => {
  const view = viewMessagesRequest(
    {
      messages: [
        { role: 'user', content: 'make a plan' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'tool_use', id: 'toolu_1', name: 'TodoWrite', input: { todos: [] } },
            { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'ls' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Todos have been modified' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: [{ type: 'text', text: 'denied' }],
              is_error: true,
            },
            { type: 'tool_result', tool_use_id: 'toolu_unknown', content: 'x' },
          ],
        },
      ],
    },
    2,
  );
  assert.equal(view.lastUserText, 'make a plan');
  assert.equal(view.isNewPrompt, false);
  assert.deepEqual(view.toolResults, [
    {
      toolUseId: 'toolu_1',
      toolName: 'TodoWrite',
      content: 'Todos have been modified',
      isError: false,
      toolInput: { todos: [] },
    },
    { toolUseId: 'toolu_2', toolName: 'Bash', content: 'denied', isError: true, toolInput: { command: 'ls' } },
    { toolUseId: 'toolu_unknown', toolName: '', content: 'x', isError: false, toolInput: undefined },
  ]);
});

test('a background task notification is exposed and is not a new prompt', () => {
  const notification =
    '<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>\n</system-reminder>';
  const view = viewMessagesRequest(
    {
      messages: [
        { role: 'user', content: 'start a background job' },
        { role: 'assistant', content: [{ type: 'text', text: 'started' }] },
        { role: 'user', content: [{ type: 'text', text: notification }] },
      ],
    },
    4,
  );
  assert.equal(view.isNewPrompt, false);
  assert.equal(view.lastUserText, 'start a background job');
  assert.match(view.taskNotification ?? '', /^<task-id>b1<\/task-id>\n<status>completed<\/status>$/);
});

test('a body without messages gives an empty view', () => {
  const view = viewMessagesRequest('not json', 0);
  assert.equal(view.lastUserText, '');
  assert.equal(view.isNewPrompt, false);
  assert.deepEqual(view.toolResults, []);
});
