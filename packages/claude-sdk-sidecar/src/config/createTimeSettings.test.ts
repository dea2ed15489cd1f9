import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTimeQueryPieces } from './createTimeSettings.ts';

test('nothing set keeps every SDK default: no settings object at all', () => {
  assert.deepEqual(createTimeQueryPieces({ effort: '', speed: '', plansDirectory: '  ' }), {});
});

test('plansDirectory, fast mode and a persistable effort are baked into settings', () => {
  assert.deepEqual(createTimeQueryPieces({ effort: 'xhigh', speed: 'fast', plansDirectory: ' plans ' }), {
    settings: { plansDirectory: 'plans', fastMode: true, effortLevel: 'xhigh' },
  });
  assert.deepEqual(createTimeQueryPieces({ effort: 'turbo', speed: 'standard', plansDirectory: '' }), {
    settings: { fastMode: false },
  });
});

test('max effort cannot be persisted and goes to the Query effort option instead', () => {
  assert.deepEqual(createTimeQueryPieces({ effort: 'max', speed: '', plansDirectory: '' }), { effort: 'max' });
});
