import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { assertFuzz, FIXED_FUZZ_SEED, fuzzRuns } from './fuzz.ts';

describe('fuzz runs', () => {
  test('the fixed seed and a random one, each with the scaled number of cases', () => {
    assert.deepEqual(fuzzRuns({ numRuns: 100, env: {}, randomSeed: () => 42 }), [
      { label: 'fixed', seed: FIXED_FUZZ_SEED, numRuns: 100 },
      { label: 'random', seed: 42, numRuns: 100 },
    ]);
    const scaled = fuzzRuns({ numRuns: 100, env: { OUTRIGGER_FUZZ_RUNS: '2.5' }, randomSeed: () => 1 });
    assert.deepEqual(
      scaled.map((run) => run.numRuns),
      [250, 250],
    );
  });

  test('a replay runs only the named seed and path', () => {
    assert.deepEqual(fuzzRuns({ numRuns: 10, env: { OUTRIGGER_FUZZ_SEED: '-7', OUTRIGGER_FUZZ_PATH: '3:1' } }), [
      { label: 'replay', seed: -7, numRuns: 10, path: '3:1' },
    ]);
    assert.throws(() => fuzzRuns({ numRuns: 10, env: { OUTRIGGER_FUZZ_SEED: 'x' } }), /must be an integer/);
  });

  test('a failing property names its seed and the line that replays it', async () => {
    const failing = fc.property(fc.integer(), (value) => value < 50);
    await assert.rejects(
      assertFuzz('demo', failing, { numRuns: 200, env: {} }),
      (error: Error) =>
        /failed with the fixed seed; replay with OUTRIGGER_FUZZ_SEED=-?\d+ OUTRIGGER_FUZZ_PATH=[\d:]+/.test(
          error.message,
        ) && /Counterexample: \[50\]/.test(error.message),
    );
  });
});
