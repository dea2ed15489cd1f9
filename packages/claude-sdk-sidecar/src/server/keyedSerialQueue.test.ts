import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyedSerialQueue } from './keyedSerialQueue.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

test('tasks of one key run in order, one at a time', async () => {
  const queue = new KeyedSerialQueue();
  const order: string[] = [];
  const gate = deferred();
  const first = queue.run('a', async () => {
    order.push('first started');
    await gate.promise;
    order.push('first ended');
  });
  const second = queue.run('a', async () => {
    order.push('second started');
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['first started']);
  gate.resolve();
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first started', 'first ended', 'second started']);
});

test('a blocked key does not delay another key', async () => {
  const queue = new KeyedSerialQueue();
  const gate = deferred();
  const blocked = queue.run('slow', () => gate.promise);
  const other = await queue.run('fast', async () => 'done');
  assert.equal(other, 'done');
  gate.resolve();
  await blocked;
});

test('a failing task does not stop the tasks behind it', async () => {
  const queue = new KeyedSerialQueue();
  const failed = queue.run('a', async () => {
    throw new Error('boom');
  });
  const next = queue.run('a', async () => 'after');
  await assert.rejects(failed, /boom/);
  assert.equal(await next, 'after');
  await queue.drained();
});

test('a preemptive task waits for earlier ordered tasks but not for an earlier preemptive one', async () => {
  const queue = new KeyedSerialQueue();
  const order: string[] = [];
  const execGate = deferred();
  const cancelGate = deferred();
  const exec = queue.run('a', async () => {
    order.push('exec');
    await execGate.promise;
  });
  const firstCancel = queue.runPreemptive('a', async () => {
    order.push('cancel 1');
    await cancelGate.promise;
  });
  const secondCancel = queue.runPreemptive('a', async () => {
    order.push('cancel 2');
  });
  const later = queue.run('a', async () => {
    order.push('later');
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['exec'], 'the cancels wait for the exec queued before them');
  execGate.resolve();
  await secondCancel;
  assert.deepEqual(order, ['exec', 'cancel 1', 'cancel 2'], 'the second cancel does not wait for the first');
  cancelGate.resolve();
  await Promise.all([exec, firstCancel, later]);
  assert.deepEqual(order, ['exec', 'cancel 1', 'cancel 2', 'later'], 'later requests wait for both cancels');
  await queue.drained();
});
