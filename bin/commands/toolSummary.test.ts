import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolSummary } from './toolSummary.ts';

test('the telling field wins, whitespace folded to one line', () => {
  assert.equal(toolSummary({ toolName: 'Bash', command: 'ls -la\n  && pwd', description: 'List' }), 'ls -la && pwd');
  assert.equal(toolSummary({ file_path: '/tmp/a.txt', content: 'x' }), '/tmp/a.txt');
});

test('without a known field the input is JSON, without toolName', () => {
  assert.equal(toolSummary({ toolName: 'X', a: 1 }), '{"a":1}');
  assert.equal(toolSummary({ toolName: 'X' }), '');
});

test('long summaries are clipped to 100 characters', () => {
  const summary = toolSummary({ command: 'x'.repeat(300) });
  assert.equal(summary.length, 100);
  assert.ok(summary.endsWith('…'));
});
