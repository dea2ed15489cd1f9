import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoalescedLoad } from './coalescedLoad.ts';
import { FakeTimers, settle } from './testing/fakeTimers.ts';

function gatedLoad() {
  const gates: (() => void)[] = [];
  let started = 0;
  const load = () =>
    new Promise<void>((resolve) => {
      started += 1;
      gates.push(resolve);
    });
  return { load, gates, started: () => started };
}

test('asks during a load run one more load after it, never two at once', async () => {
  const { load, gates, started } = gatedLoad();
  const loads = new CoalescedLoad(load);
  const first = loads.now();
  const second = loads.now();
  const third = loads.now();
  await settle();
  assert.equal(started(), 1, 'one load at a time');
  gates[0]!();
  await settle();
  assert.equal(started(), 2, 'the asks made meanwhile run once, after it');
  gates[1]!();
  await Promise.all([first, second, third]);
  assert.equal(started(), 2);
});

test('soon gathers a burst into one load after a quiet spell; a failed load is not the end', async () => {
  const timers = new FakeTimers();
  let loaded = 0;
  const loads = new CoalescedLoad(
    async () => {
      loaded += 1;
      if (loaded === 1) throw new Error('the host did not answer');
    },
    { timers, delayMs: 300 },
  );
  loads.soon();
  loads.soon();
  loads.soon();
  await timers.advance(299);
  assert.equal(loaded, 0);
  await timers.advance(1);
  assert.equal(loaded, 1);
  await loads.now();
  assert.equal(loaded, 2, 'a failure ends its round only');
  loads.stop();
  loads.soon();
  await loads.now();
  await timers.advance(1000);
  assert.equal(loaded, 2, 'nothing loads once stopped');
});
