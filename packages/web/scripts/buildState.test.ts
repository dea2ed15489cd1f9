import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sourceDigest } from './buildState.ts';

test('the source digest is stable and covers the UI sources', () => {
  const first = sourceDigest();
  assert.match(first, /^[0-9a-f]{64}$/);
  assert.equal(sourceDigest(), first);
});
