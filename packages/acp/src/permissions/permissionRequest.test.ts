import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Interaction, interactionSchema } from '@outrigger/host-api';
import { answerOf, permissionRequestsOf } from './permissionRequest.ts';

function interaction(fields: Partial<Interaction>): Interaction {
  return interactionSchema.parse({
    requestId: 'r1',
    session_id: 's1',
    turnId: 't1',
    kind: 'approval',
    toolName: 'Bash',
    tool_use_id: 'tool-1',
    input: { command: 'npm test' },
    options: [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      {
        optionId: 'allow_always',
        name: 'Always',
        kind: 'allow_always',
        sessionGrant: { rules: ['Bash(npm test:*)'], directories: [] },
      },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ],
    agentId: null,
    parentToolUseId: null,
    status: 'pending',
    answer: null,
    resolution: null,
    createdAt: 1,
    resolvedAt: null,
    ...fields,
  });
}

const selected = (optionId: string) => ({ outcome: 'selected' as const, optionId });

test('an approval: allow once, allow for the session naming what it covers, reject; each answer as the host takes it', () => {
  const approval = interaction({});
  const [ask] = permissionRequestsOf(approval);
  assert.equal(ask?.toolCall.toolCallId, 'tool-1');
  assert.deepEqual(
    ask?.options.map((option) => [option.optionId, option.kind]),
    [
      ['allow', 'allow_once'],
      ['allow_always', 'allow_always'],
      ['reject', 'reject_once'],
    ],
  );
  assert.match(ask?.options[1]?.name ?? '', /Bash\(npm test:\*\)/);
  assert.deepEqual(answerOf(approval, [selected('allow')]), { action: 'allow', optionId: 'allow', payload: {} });
  assert.deepEqual(answerOf(approval, [selected('allow_always')]), {
    action: 'allow',
    optionId: 'allow_always',
    payload: {},
  });
  assert.deepEqual(answerOf(approval, [selected('reject')]), { action: 'reject', optionId: 'reject', payload: {} });
  assert.equal(answerOf(approval, [{ outcome: 'cancelled' }]), undefined, 'cancelled: no answer');
  assert.throws(() => answerOf(approval, [selected('maybe')]), /unknown option maybe/);
  const noAlways = interaction({ options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] });
  assert.ok(!permissionRequestsOf(noAlways)[0]?.options.some((option) => option.kind === 'allow_always'));
});

test('a plan offers its modes and Keep planning', () => {
  const plan = interaction({
    kind: 'plan',
    toolName: 'ExitPlanMode',
    input: { plan: '1. do it' },
    options: [
      { optionId: 'acceptEdits', name: 'Yes, and accept edits', kind: 'allow_once' },
      { optionId: 'default', name: 'Yes', kind: 'allow_once' },
      { optionId: 'plan', name: 'No, keep planning', kind: 'reject_once' },
    ],
  });
  const [ask] = permissionRequestsOf(plan);
  assert.deepEqual(
    ask?.options.map((option) => option.optionId),
    ['acceptEdits', 'default', 'plan'],
  );
  assert.deepEqual(answerOf(plan, [selected('acceptEdits')]), {
    action: 'allow',
    optionId: 'acceptEdits',
    payload: {},
  });
  assert.deepEqual(answerOf(plan, [selected('plan')]), { action: 'reject', optionId: 'plan', payload: {} });
  assert.throws(() => answerOf(plan, [selected('bypassPermissions')]), /unknown option/);
});

test('questions: one ask per question, answered together by label; Skip skips', () => {
  const question = interaction({
    kind: 'question',
    toolName: 'AskUserQuestion',
    input: {
      questions: [
        { id: 'q1', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] },
        { id: 'q2', question: 'Tests?', options: [{ label: 'Yes' }, { label: 'No' }] },
      ],
    },
    options: [{ optionId: 'allow', name: 'Answer', kind: 'allow_once' }],
  });
  const asks = permissionRequestsOf(question);
  assert.deepEqual(
    asks.map((ask) => [ask.questionId, ask.toolCall.title, ask.options.map((option) => option.name)]),
    [
      ['q1', 'Which database?', ['SQLite', 'PostgreSQL', 'Skip']],
      ['q2', 'Tests?', ['Yes', 'No', 'Skip']],
    ],
  );
  assert.deepEqual(answerOf(question, [selected('1'), selected('0')]), {
    action: 'allow',
    optionId: 'allow',
    payload: { answersByQuestionId: { q1: 'PostgreSQL', q2: 'Yes' } },
  });
  assert.deepEqual(answerOf(question, [selected('0'), selected('skip')]), {
    action: 'reject',
    optionId: 'reject',
    payload: {},
  });
  assert.throws(() => answerOf(question, [selected('7'), selected('0')]), /unknown option 7/);
});
