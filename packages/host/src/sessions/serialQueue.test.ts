import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SerialQueue } from './serialQueue.ts';

test('runs tasks one at a time in queue order; a failure fails only its caller', async () => {
  const queue = new SerialQueue();
  const log: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const first = queue.run(async () => {
    log.push('first:start');
    await gate;
    log.push('first:end');
    return 1;
  });
  const second = queue.run(() => {
    log.push('second');
    throw new Error('second fails');
  });
  const third = queue.run(() => {
    log.push('third');
    return 3;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ['first:start'], 'nothing overtakes a running task');
  assert.equal(queue.pending, 3);
  release();
  assert.equal(await first, 1);
  await assert.rejects(second, /second fails/);
  assert.equal(await third, 3);
  assert.deepEqual(log, ['first:start', 'first:end', 'second', 'third']);
  await queue.drained();
  assert.equal(queue.pending, 0);
});

test('two queues do not wait for each other', async () => {
  const blocked = new SerialQueue();
  const free = new SerialQueue();
  void blocked.run(() => new Promise(() => undefined));
  assert.equal(await free.run(() => 'ran'), 'ran');
});

test('runBatched gathers items while their task waits, never past a task queued after it', async () => {
  const queue = new SerialQueue();
  const log: string[] = [];
  const apply = async (items: readonly string[]) => {
    log.push(items.join('+'));
  };
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  void queue.run(() => gate);
  const first = queue.runBatched('a', apply);
  assert.equal(queue.runBatched('b', apply), first, 'b joins the waiting batch');
  void queue.run(() => log.push('command'));
  void queue.runBatched('c', apply);
  void queue.runBatched('d', apply);
  release();
  await queue.drained();
  assert.deepEqual(log, ['a+b', 'command', 'c+d']);

  // Items that come while a batch runs start the next batch; a different apply never shares one.
  log.length = 0;
  let releaseBatch!: () => void;
  const slowApply = async (items: readonly string[]) => {
    log.push(`slow:${items.join('+')}`);
    await new Promise<void>((resolve) => (releaseBatch = resolve));
  };
  void queue.runBatched('e', slowApply);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ['slow:e'], 'the batch has started');
  void queue.runBatched('f', slowApply);
  void queue.runBatched('g', apply);
  void queue.runBatched('h', apply);
  releaseBatch();
  await new Promise((resolve) => setImmediate(resolve));
  releaseBatch();
  await queue.drained();
  assert.deepEqual(log, ['slow:e', 'slow:f', 'g+h']);
});

test('a batch that fails fails its items and nothing after it', async () => {
  const queue = new SerialQueue();
  const failing = async () => {
    throw new Error('batch failed');
  };
  const batch = queue.runBatched(1, failing);
  assert.equal(queue.runBatched(2, failing), batch);
  await assert.rejects(batch, /batch failed/);
  assert.equal(await queue.run(() => 'next'), 'next');
});
