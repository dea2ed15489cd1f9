import assert from 'node:assert/strict';
import { test } from 'node:test';
import { anyFailed, fail, formatChecks, note, ok } from './checkResult.ts';

test('one line per check, status and name in columns', () => {
  const text = formatChecks([ok('node', 'v24'), fail('port', 'in use'), note('credential', 'none')]);
  assert.equal(text, 'ok    node        v24\nFAIL  port        in use\nnote  credential  none\n');
});

test('only a FAIL counts as failed; a note does not', () => {
  assert.equal(anyFailed([ok('a', ''), note('b', '')]), false);
  assert.equal(anyFailed([ok('a', ''), fail('b', '')]), true);
});
