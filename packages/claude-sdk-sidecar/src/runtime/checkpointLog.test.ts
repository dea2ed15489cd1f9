import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CheckpointLog } from './checkpointLog.ts';

test('a checkpoint is recorded once per (turn, provider turn, checkpoint)', () => {
  const log = new CheckpointLog();
  assert.equal(log.record('t1', 'p1', 'c1'), true);
  assert.equal(log.record('t1', 'p1', 'c1'), false);
  assert.equal(log.record('t1', 'p1', 'c2'), true);
  assert.equal(log.record('t2', 'p1', 'c1'), true);
});

test('the oldest checkpoint is forgotten beyond the capacity', () => {
  const log = new CheckpointLog(2);
  log.record('t', 'p', 'a');
  log.record('t', 'p', 'b');
  log.record('t', 'p', 'c');
  assert.equal(log.record('t', 'p', 'c'), false);
  assert.equal(log.record('t', 'p', 'a'), true);
});
