import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  approvalAnswer,
  chosenAnswers,
  isAnswered,
  planAnswer,
  planOf,
  questionAnswer,
  questionsOf,
} from './questionForm.ts';

const input = {
  questions: [
    {
      id: 'q-db',
      question: 'Which database?',
      header: 'Database',
      multiSelect: false,
      options: [{ label: 'SQLite', description: 'One file' }, { label: 'PostgreSQL' }],
    },
    { question: 'Which extras?', multiSelect: true, options: [{ label: 'Auth' }, { label: 'Cache' }, 42] },
  ],
};

test('questions keep their ids (or get a stable one) and their options', () => {
  const questions = questionsOf({ input });
  assert.deepEqual(
    questions.map((q) => [q.id, q.multiSelect, q.options.map((o) => o.label)]),
    [
      ['q-db', false, ['SQLite', 'PostgreSQL']],
      ['question-1', true, ['Auth', 'Cache']],
    ],
  );
  assert.deepEqual(questionsOf({ input: {} }), []);
});

test('answers are keyed by question id: a string for one choice, a list for multi-select with Other…', () => {
  const questions = questionsOf({ input });
  const body = questionAnswer(questions, {
    'q-db': { selected: ['SQLite'], other: '' },
    'question-1': { selected: ['Auth'], other: '  rate limits ' },
  });
  assert.deepEqual(body, {
    action: 'allow',
    optionId: 'allow',
    payload: { answersByQuestionId: { 'q-db': 'SQLite', 'question-1': ['Auth', 'rate limits'] } },
  });
  const other = questionAnswer(questions, { 'q-db': { selected: [], other: 'DuckDB' } });
  assert.equal((other.payload.answersByQuestionId as Record<string, unknown>)['q-db'], 'DuckDB');
  assert.equal(isAnswered({ selected: [], other: '  ' }), false);
  assert.equal(isAnswered({ selected: [], other: 'x' }), true);
});

test('approval and plan answers have the contract’s shapes', () => {
  assert.deepEqual(approvalAnswer('allow'), { action: 'allow', optionId: 'allow', payload: {} });
  assert.deepEqual(approvalAnswer('allow_always'), { action: 'allow', optionId: 'allow_always', payload: {} });
  assert.deepEqual(approvalAnswer('reject', ' not in prod '), {
    action: 'reject',
    optionId: 'reject',
    payload: { denyMessage: 'not in prod' },
  });
  assert.deepEqual(approvalAnswer('reject'), { action: 'reject', optionId: 'reject', payload: {} });
  assert.deepEqual(planAnswer('acceptEdits'), { action: 'allow', optionId: 'acceptEdits', payload: {} });
  assert.deepEqual(planAnswer(null), { action: 'reject', optionId: 'plan', payload: {} });
  assert.equal(planOf({ input: { plan: '# Plan' } }), '# Plan');
});

test('an answered question says what was chosen, over every question and choice', () => {
  assert.equal(chosenAnswers({ answersByQuestionId: { q1: 'PostgreSQL' } }), 'PostgreSQL');
  assert.equal(chosenAnswers({ answersByQuestionId: { q1: ['a', 'b'], q2: 'c', q3: '' } }), 'a, b, c');
  assert.equal(chosenAnswers({}), '');
});
