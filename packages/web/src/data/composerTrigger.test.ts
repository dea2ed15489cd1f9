import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyCompletion, triggerAt } from './composerTrigger.ts';

test('a slash command is completed only as the prompt’s first word', () => {
  assert.deepEqual(triggerAt('/', 1), { kind: 'command', query: '', start: 0, end: 1 });
  assert.deepEqual(triggerAt('/comp', 5), { kind: 'command', query: 'comp', start: 0, end: 5 });
  assert.deepEqual(triggerAt('/comp', 3), { kind: 'command', query: 'co', start: 0, end: 5 });
  assert.equal(triggerAt('/compact now', 12), null, 'past the first word');
  assert.equal(triggerAt('see /usr', 8), null, 'a path in a sentence is no command');
  assert.equal(triggerAt('hello', 5), null);
});

test('a file path is completed after an @ that starts a word', () => {
  assert.deepEqual(triggerAt('look at @src/ma', 15), { kind: 'file', query: 'src/ma', start: 8, end: 15 });
  assert.deepEqual(triggerAt('@', 1), { kind: 'file', query: '', start: 0, end: 1 });
  assert.equal(triggerAt('mail me@example.com', 19), null, 'an address is no file');
  assert.equal(triggerAt('@src/a.ts done', 14), null, 'the word ended');
});

test('a choice replaces the word; a directory keeps completing, anything else ends with a space', () => {
  const command = triggerAt('/comp', 5);
  assert.ok(command !== null);
  assert.deepEqual(applyCompletion('/comp', command, 'compact'), { text: '/compact ', caret: 9 });
  const file = triggerAt('read @sr please', 8);
  assert.ok(file !== null);
  assert.deepEqual(applyCompletion('read @sr please', file, 'src/'), { text: 'read @src/ please', caret: 10 });
  assert.deepEqual(applyCompletion('read @sr please', file, 'src/a.ts'), { text: 'read @src/a.ts please', caret: 15 });
  const end = triggerAt('read @sr', 8);
  assert.ok(end !== null);
  assert.deepEqual(applyCompletion('read @sr', end, 'src/a.ts'), { text: 'read @src/a.ts ', caret: 15 });
});
