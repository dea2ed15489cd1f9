import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answersFromPayload, identifyQuestions } from './askUserQuestion.ts';

const questions = [
  { id: 'q1', question: 'Which database?' },
  { id: 'q2', question: 'Which features?' },
];

describe('identifyQuestions', () => {
  it('adds stable ids derived from position and content, and keeps given ones', () => {
    const input = { questions: [{ question: 'A?' }, { question: 'A?' }, { id: 'mine', question: 'B?' }], extra: 1 };
    const first = identifyQuestions(input);
    const second = identifyQuestions(structuredClone(input));
    assert.deepEqual(first.questions, second.questions);
    const [a, b, c] = first.questions;
    assert.notEqual(a.id, b.id, 'identical questions at different positions get different ids');
    assert.equal(c.id, 'mine');
    assert.equal(first.published.extra, 1);
    assert.equal((input.questions[0] as { id?: string }).id, undefined, 'the SDK input is not mutated');
  });

  it('tolerates malformed input', () => {
    assert.deepEqual(identifyQuestions({}).questions, []);
    assert.deepEqual(identifyQuestions({ questions: ['x', null] }).questions, []);
  });
});

describe('answersFromPayload', () => {
  it('re-keys answers to question text, preferring answers by id, and ignores unknown keys and bad values', () => {
    const result = answersFromPayload(questions, {
      answers: { 'Which database?': 'Postgres', 'Unknown?': 'x', q2: 7 },
      answersByQuestionId: { q1: 'SQLite', q2: ['Auth', 'Search'], nope: 'y' },
    });
    assert.deepEqual(result, { answers: { 'Which database?': 'SQLite', 'Which features?': 'Auth, Search' } });
  });

  it('keeps only known annotation fields', () => {
    const result = answersFromPayload(questions, {
      answers: { q1: 'SQLite' },
      annotations: { q1: { notes: 'small', unanswered: 'skipped', other: 'x' }, q2: { other: 'x' } },
    });
    assert.deepEqual(result, {
      answers: { 'Which database?': 'SQLite' },
      annotations: { 'Which database?': { notes: 'small', unanswered: 'skipped' } },
    });
  });
});
