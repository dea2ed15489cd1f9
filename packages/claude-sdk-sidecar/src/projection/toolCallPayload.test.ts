import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildToolCallPayload, createToolCallState, toolCallTypeOf, toolResultView } from './toolCallPayload.ts';

test('call types follow the tool name', () => {
  const expected: [string, string][] = [
    ['AskUserQuestion', 'interactive'],
    ['ExitPlanMode', 'interactive'],
    ['Task', 'subagent'],
    ['Agent', 'subagent'],
    ['Bash', 'command'],
    ['Write', 'file_change'],
    ['Edit', 'file_change'],
    ['MultiEdit', 'file_change'],
    ['NotebookEdit', 'file_change'],
    ['WebSearch', 'web_search'],
    ['WebFetch', 'web_search'],
    ['mcp__github__create_issue', 'mcp_tool'],
    ['Read', 'tool'],
    ['TodoWrite', 'tool'],
    ['constructor', 'tool'],
  ];
  assert.deepEqual(
    expected.map(([name]) => [name, toolCallTypeOf(name)]),
    expected,
  );
});

test('an Edit carries its location and a file_change block next to the result', () => {
  const tool = createToolCallState(
    't1',
    'Edit',
    { file_path: '/w/a.ts', old_string: 'a', new_string: 'b' },
    undefined,
    'turn',
  );
  const payload = buildToolCallPayload(
    'turn',
    tool,
    'completed',
    toolResultView({ content: 'ok' }, { filePath: '/w/a.ts' }),
  );
  assert.deepEqual(payload.locations, [{ path: '/w/a.ts' }]);
  assert.deepEqual(payload.content, [
    { type: 'file_change', path: '/w/a.ts', oldText: 'a', newText: 'b' },
    { type: 'tool_result', isError: false, text: 'ok' },
  ]);
  assert.deepEqual(payload.output, { text: 'ok', toolResponse: { filePath: '/w/a.ts' } });
  assert.equal(payload.toolCallId, 't1');
  assert.equal(payload.callId, 't1');
  assert.deepEqual(payload.input, { file_path: '/w/a.ts', old_string: 'a', new_string: 'b', toolName: 'Edit' });
});

test('array results keep their blocks and join their text', () => {
  const view = toolResultView(
    {
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', source: {} },
        { type: 'text', text: 'two' },
      ],
    },
    undefined,
  );
  assert.equal(view.text, 'one\ntwo');
  assert.equal((view.content as unknown[]).length, 3);
});

test('a started call has no content and no output', () => {
  const tool = createToolCallState('t1', 'Glob', { pattern: '*.ts' }, 'parent', 'turn');
  const payload = buildToolCallPayload('turn', tool, 'streaming');
  assert.equal(payload.content, undefined);
  assert.equal(payload.output, undefined);
  assert.deepEqual(payload.metadata, { adapter: 'claude-agent-sdk', toolName: 'Glob', parentToolUseId: 'parent' });
});
