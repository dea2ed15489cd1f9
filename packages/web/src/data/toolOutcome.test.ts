import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ToolDecision, toolDecisionOf } from '@outrigger/host-api';
import { decisionText, grantText, outcomeLabel, outcomeOf } from './toolOutcome.ts';

const approval = (sessionGrant?: { rules: string[]; directories: string[] }) => ({
  requestId: 'r1',
  kind: 'approval' as const,
  input: { command: 'npm test' },
  options: [{ kind: 'allow_always', name: 'Allow for session', optionId: 'allow_always', sessionGrant }],
  resolution: null,
});

test('each decision reads as what the person chose', () => {
  const at = 1;
  const denied = toolDecisionOf(
    approval(),
    { action: 'reject', optionId: 'reject', payload: { denyMessage: 'not now' } },
    at,
  );
  assert.equal(decisionText(denied, 'Bash'), 'Denied: not now');
  assert.equal(
    decisionText(toolDecisionOf(approval(), { action: 'reject', optionId: 'reject', payload: {} }, at), 'Bash'),
    'Denied.',
  );
  assert.equal(
    decisionText(toolDecisionOf(approval(), { action: 'allow', optionId: 'allow', payload: {} }, at), 'Bash'),
    'Allowed once.',
  );
  const session = toolDecisionOf(
    approval({ rules: ['Bash(npm test:*)'], directories: [] }),
    { action: 'allow', optionId: 'allow_always', payload: {} },
    at,
  );
  assert.equal(decisionText(session, 'Bash'), 'Allowed for this session: this exact command, and Bash(npm test:*).');
  const question = toolDecisionOf(
    { ...approval(), kind: 'question', input: { questions: [{ id: 'q', question: 'DB?' }] } },
    { action: 'allow', optionId: 'allow', payload: { answersByQuestionId: { q: 'SQLite' } } },
    at,
  );
  assert.equal(decisionText(question, 'AskUserQuestion'), 'Answered: SQLite.');
  // A row migrated from before `questions` existed: the answer's payload still says what was chosen.
  assert.equal(decisionText({ ...question, questions: [] } as ToolDecision, 'AskUserQuestion'), 'Answered: SQLite.');
  const gone = toolDecisionOf({ ...approval(), resolution: 'host_restarted' }, null, at);
  assert.equal(decisionText(gone, 'Bash'), 'Not answered: the host crashed or was killed.');
  const stopped = toolDecisionOf({ ...approval(), resolution: 'host_stopped' }, null, at);
  assert.equal(decisionText(stopped, 'Bash'), 'Not answered: the host was stopped.');
});

test('what a session grant covers: the exact request, and the suggested rules and directories', () => {
  assert.equal(grantText(null, 'Bash'), 'this exact command');
  assert.equal(grantText({ rules: [], directories: ['/w/x'] }, 'Write'), 'this exact Write request, and files in /w/x');
});

test('the outcome comes from the stored block; an older block from its status and result', () => {
  assert.equal(
    outcomeOf({ status: 'failed', outcome: 'denied' }, { is_error: true, resultSource: 'canonical' }),
    'denied',
  );
  assert.equal(outcomeOf({ status: 'running', outcome: 'timed_out' }, undefined), 'running');
  assert.equal(outcomeOf({ status: 'failed', outcome: 'timed_out' }, undefined), 'timed_out');
  assert.equal(outcomeOf({ status: 'failed' }, { is_error: true, resultSource: 'synthesized' }), 'stopped');
  assert.equal(outcomeOf({ status: 'completed' }, { is_error: false, resultSource: 'canonical' }), 'completed');
  assert.equal(outcomeLabel('denied', null), 'denied');
  assert.equal(outcomeLabel('timed_out', null), 'timed out');
  assert.equal(outcomeLabel('completed', null), null);
});
