import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolKind, toolLabel, toolSummary } from './toolSummary.ts';

const t = (name: string, input: Record<string, unknown>, callType = 'tool' as const) => ({ name, input, callType });

test('each kind of call gets its icon kind and a one-line summary of its input', () => {
  assert.equal(toolKind(t('Bash', {})), 'command');
  assert.equal(toolKind(t('Edit', {})), 'file');
  assert.equal(toolKind(t('Grep', {})), 'search');
  assert.equal(toolKind(t('WebFetch', {})), 'web');
  assert.equal(toolKind(t('mcp__github__create_issue', {})), 'mcp');
  assert.equal(toolKind(t('Agent', {})), 'agent');
  assert.equal(toolKind({ name: 'Custom', callType: 'subagent' }), 'agent');
  assert.equal(toolKind(t('Mystery', {})), 'other');
  assert.equal(toolSummary(t('Bash', { command: 'npm   test\n  --watch' })), 'npm test --watch');
  assert.equal(toolSummary(t('Edit', { file_path: '/src/app.ts', old_string: 'a' })), '/src/app.ts');
  assert.equal(toolSummary(t('Grep', { pattern: 'TODO', path: 'src' })), 'TODO  in src');
  assert.equal(toolSummary(t('TodoWrite', { todos: [{}, {}, {}] })), '0/3 done');
  assert.equal(
    toolSummary(
      t('TodoWrite', {
        todos: [
          { status: 'completed', activeForm: 'Reading' },
          { status: 'in_progress', activeForm: 'Summarising the architecture' },
          { status: 'pending' },
        ],
      }),
    ),
    '1/3 done · Summarising the architecture',
  );
  assert.equal(toolSummary(t('AskUserQuestion', { questions: [{ question: 'Which DB?' }] })), 'Which DB?');
  assert.equal(toolSummary(t('WebSearch', { query: 'zod v4' })), 'zod v4');
  assert.equal(toolSummary(t('Bash', { command: 'x'.repeat(500) })).length, 200);
  assert.equal(toolLabel('mcp__github__create_issue'), 'github · create_issue');
  assert.equal(toolLabel('Bash'), 'Bash');
});
