import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median, percentile } from './stats.ts';

test('percentile is nearest-rank over unsorted samples', () => {
  const samples = [9, 1, 5, 3, 7, 2, 8, 4, 6, 10];
  assert.equal(percentile(samples, 50), 5);
  assert.equal(percentile(samples, 95), 10);
  assert.equal(percentile(samples, 10), 1);
  assert.ok(Number.isNaN(percentile([], 99)));
});

test('median takes the middle sample, or averages the two middle ones', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([1.2, 0.9, 1.0, 1.1]), 1.05);
  assert.ok(Number.isNaN(median([])));
});
