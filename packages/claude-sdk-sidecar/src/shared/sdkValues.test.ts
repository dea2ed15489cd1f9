import assert from 'node:assert/strict';
import { test } from 'node:test';
import { terminalTaskStatus } from './sdkValues.ts';

test('a task status is terminal when it is completed, failed, stopped or killed (a stop)', () => {
  assert.deepEqual(
    ['completed', 'failed', 'stopped', 'killed', 'running', 'pending', '', undefined, 1].map(terminalTaskStatus),
    ['completed', 'failed', 'stopped', 'stopped', undefined, undefined, undefined, undefined, undefined],
  );
});
