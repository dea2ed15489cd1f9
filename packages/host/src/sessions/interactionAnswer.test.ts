import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Interaction } from '@outrigger/host-api';
import { testInteraction } from '../store/testRecords.ts';
import { decideAnswer } from './interactionAnswer.ts';

const base = testInteraction('s1', 'r1', {
  kind: 'question',
  toolName: 'AskUserQuestion',
  tool_use_id: 'tu1',
  input: {},
  options: [],
  createdAt: 1,
});

const answer = { action: 'allow', optionId: 'allow', payload: { answersByQuestionId: { q1: 'A', q2: ['B', 'C'] } } };

test('pending is submitted; superseded is gone', () => {
  assert.equal(decideAnswer(base, answer), 'submit');
  assert.equal(decideAnswer({ ...base, status: 'superseded', resolution: 'turn_ended' }, answer), 'gone');
});

test('answered: the same answer (whatever its key order) replays; any difference conflicts', () => {
  const answered: Interaction = { ...base, status: 'answered', resolution: 'answered', answer };
  const reordered = {
    payload: { answersByQuestionId: { q2: ['B', 'C'], q1: 'A' } },
    optionId: 'allow',
    action: 'allow',
  };
  assert.equal(decideAnswer(answered, reordered), 'replay');
  assert.equal(decideAnswer(answered, { ...answer, action: 'reject' }), 'conflict');
  assert.equal(decideAnswer(answered, { ...answer, optionId: 'allow_always' }), 'conflict');
  assert.equal(
    decideAnswer(answered, { ...answer, payload: { answersByQuestionId: { q1: 'A', q2: ['C', 'B'] } } }),
    'conflict',
    'array order is part of the answer',
  );
});
