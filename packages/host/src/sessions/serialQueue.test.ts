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
