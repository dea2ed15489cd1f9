import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextContextReading } from './contextReading.ts';

test('the context reading keeps the last value until a new one arrives', () => {
  const first = { usedTokens: 40_000, totalTokens: 200_000, compactsAutomatically: true };
  assert.equal(nextContextReading(null, null), null, 'nothing measured yet');
  assert.deepEqual(nextContextReading(null, first), first);
  assert.deepEqual(nextContextReading(first, null), first, 'a turn that starts does not blank it');
  assert.deepEqual(
    nextContextReading(first, { usedTokens: 52_000, compactsAutomatically: true }),
    { usedTokens: 52_000, totalTokens: 200_000, compactsAutomatically: true },
    'a measurement without the window size keeps the last size',
  );
  const second = { usedTokens: 9_000, totalTokens: 1_000_000, compactsAutomatically: false };
  assert.deepEqual(nextContextReading(first, second), second, 'a new measurement replaces it');
});
