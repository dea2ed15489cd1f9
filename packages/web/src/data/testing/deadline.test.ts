import assert from 'node:assert/strict';
import { test } from 'node:test';
import { within } from './deadline.ts';

test('within: a promise that never settles fails at the deadline, naming what was awaited', async () => {
  const started = Date.now();
  await assert.rejects(within('the stream to close', new Promise(() => undefined), 50), {
    message: 'gave up after 50 ms waiting for the stream to close',
  });
  assert.ok(Date.now() - started < 1_000, 'it failed at its deadline, not later');
});

test('within: a settled promise passes through, its value or its error', async () => {
  assert.equal(await within('a value', Promise.resolve(7), 50), 7);
  await assert.rejects(within('a failure', Promise.reject(new Error('refused')), 50), { message: 'refused' });
});
