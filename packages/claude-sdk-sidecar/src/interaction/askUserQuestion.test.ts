import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answersFromPayload, contractQuestionId, identifyQuestions } from './askUserQuestion.ts';

const questions = [
  { id: 'q1', question: 'Which database?' },
  { id: 'q2', question: 'Which features?' },
];

describe('identifyQuestions', () => {
  it('adds contract-question ids a host can compute, and keeps given ones', () => {
    const confirm = { question: 'Delete everything?', header: 'Confirm' };
    const input = { questions: [confirm, { id: 'mine', question: 'B?' }], extra: 1 };
    const first = identifyQuestions(input);
    assert.deepEqual(first.questions, identifyQuestions(structuredClone(input)).questions, 'stable');
    assert.deepEqual(first.questions, [
      { id: contractQuestionId(confirm), question: 'Delete everything?' },
      { id: 'mine', question: 'B?' },
    ]);
    assert.deepEqual((first.published.questions as unknown[])[0], { ...confirm, id: contractQuestionId(confirm) });
    assert.equal(first.published.extra, 1);
    assert.equal((input.questions[0] as { id?: string }).id, undefined, 'the SDK input is not mutated');
  });

  it('tolerates malformed input', () => {
    assert.deepEqual(identifyQuestions({}).questions, []);
    assert.deepEqual(identifyQuestions({ questions: ['x', null] }).questions, []);
  });
});

describe('contractQuestionId', () => {
  it('is the FNV-1a of the question JSON as sent, one step per code point, in base 36', () => {
    assert.equal(
      contractQuestionId({
        header: 'Confirm',
        question: 'Delete everything?',
        options: [{ label: 'Yes', description: 'Delete files' }],
      }),
      'contract-question-1412lhw',
    );
    // Non-ASCII and an astral character: hashing UTF-16 units or UTF-8 bytes gives other ids.
    assert.equal(
      contractQuestionId({ header: 'Bestätigen', question: 'Alles löschen? 🗑' }),
      'contract-question-1b2mje1',
    );
  });

  it('depends on the key order Claude Code sent', () => {
    assert.notEqual(
      contractQuestionId({ question: 'A?', header: 'H' }),
      contractQuestionId({ header: 'H', question: 'A?' }),
    );
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
