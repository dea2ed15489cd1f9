import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median, percentile, spread, spreadOf } from './stats.ts';

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

test('spread reports the median, the extremes and every sample, rounded', () => {
  assert.deepEqual(spread([212.34, 198.06, 230.91]), {
    runs: 3,
    median: 212.3,
    min: 198.1,
    max: 230.9,
    samples: [212.3, 198.1, 230.9],
  });
});

test('spreadOf reports the count, the median, the quartiles, p95 and the extremes, rounded', () => {
  const samples = [9, 1, 5, 3, 7, 2, 8, 4, 6, 10.04];
  assert.deepEqual(spreadOf(samples), { n: 10, median: 5.5, p25: 3, p75: 8, p95: 10, min: 1, max: 10 });
  assert.deepEqual(spreadOf([1.23456], 3), {
    n: 1,
    median: 1.235,
    p25: 1.235,
    p75: 1.235,
    p95: 1.235,
    min: 1.235,
    max: 1.235,
  });
});
