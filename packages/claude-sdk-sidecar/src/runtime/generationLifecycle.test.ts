import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FakeClaudeQuery } from '../testing/fakeClaudeQuery.ts';
import { consumingFakeGeneration } from '../testing/fakeGeneration.ts';
import { GenerationLifecycle } from './generationLifecycle.ts';

/** Resolves once `condition` holds; fails naming `description` after two seconds. */
async function until(condition: () => boolean, description: string): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A lifecycle over fake Queries whose idle/background state the test sets. */
function rig(options: { idleTtlMs?: number } = {}) {
  const queries: FakeClaudeQuery[] = [];
  const state = { turnsIdle: true, backgroundWork: false };
  const lifecycle = new GenerationLifecycle({
    create: (id) => {
      const { generation, query } = consumingFakeGeneration(id);
      queries.push(query);
      return generation;
    },
    idleTtlMs: options.idleTtlMs ?? 60_000,
    closeDrainTimeoutMs: 1_000,
    turnsIdle: () => state.turnsIdle,
    hasBackgroundWork: () => state.backgroundWork,
  });
  return { lifecycle, queries, state };
}

test('the live generation serves until it is revoked; the next one gets the next id', () => {
  const { lifecycle, queries } = rig();
  const first = lifecycle.ensure();
  assert.equal(lifecycle.ensure(), first, 'a live generation is reused');
  assert.ok(lifecycle.isCurrent(first));
  first.revoke();
  assert.equal(lifecycle.isCurrent(first), false, 'a revoked generation is never live');
  const second = lifecycle.ensure();
  assert.deepEqual([first.id, second.id, queries.length], [1, 2, 2]);
});

test('a generation that fails to be created uses up no id', () => {
  let fail = true;
  const lifecycle = new GenerationLifecycle({
    create: (id) => {
      if (fail) throw new Error('not started');
      return consumingFakeGeneration(id).generation;
    },
    idleTtlMs: 60_000,
    closeDrainTimeoutMs: 1_000,
    turnsIdle: () => true,
    hasBackgroundWork: () => false,
  });
  assert.throws(() => lifecycle.ensure(), /not started/);
  fail = false;
  assert.equal(lifecycle.ensure().id, 1);
});

test('the idle TTL retires an idle Query without interrupting it', async () => {
  const { lifecycle, queries } = rig({ idleTtlMs: 5 });
  const generation = lifecycle.ensure();
  lifecycle.armIdle();
  await until(() => lifecycle.current === undefined, 'the idle Query retired');
  await lifecycle.stopped();
  assert.ok(generation.revoked);
  assert.deepEqual(queries[0]?.calls, ['close']);
});

test('background work keeps the Query past the TTL; the TTL starts over until the work is done', async () => {
  const { lifecycle, queries, state } = rig({ idleTtlMs: 5 });
  lifecycle.ensure();
  state.backgroundWork = true;
  lifecycle.armIdle();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(lifecycle.current, 'still live while background work runs');
  assert.deepEqual(queries[0]?.calls, []);
  state.backgroundWork = false;
  await until(() => lifecycle.current === undefined, 'retired once the background work ended');
});

test('retireIfIdle keeps a Query a turn or background work still needs', async () => {
  const { lifecycle, state } = rig();
  const generation = lifecycle.ensure();
  state.turnsIdle = false;
  lifecycle.retireIfIdle(generation);
  assert.equal(lifecycle.current, generation, 'a turn is running');
  state.turnsIdle = true;
  state.backgroundWork = true;
  lifecycle.retireIfIdle(generation);
  assert.equal(lifecycle.current, generation, 'background work runs');
  state.backgroundWork = false;
  lifecycle.retireIfIdle(generation);
  assert.equal(lifecycle.current, undefined);
  await lifecycle.stopped();
});

test('a discarded generation is interrupted then closed, and close waits for it', async () => {
  const { lifecycle, queries } = rig();
  const generation = lifecycle.ensure();
  lifecycle.discard(generation);
  assert.equal(lifecycle.current, undefined, 'out of service at once');
  await lifecycle.close();
  await lifecycle.stopped();
  assert.deepEqual(queries[0]?.calls, ['interrupt', 'close']);
});

test('abandoning a continuation only interrupts a Query a turn still waits on, else retires it', async () => {
  const { lifecycle, queries, state } = rig();
  const first = lifecycle.ensure();
  state.turnsIdle = false;
  await lifecycle.abandonContinuation();
  assert.equal(lifecycle.current, first);
  assert.deepEqual(queries[0]?.calls, ['interrupt']);
  state.turnsIdle = true;
  await lifecycle.abandonContinuation();
  assert.equal(lifecycle.current, undefined);
  assert.deepEqual(queries[0]?.calls, ['interrupt', 'interrupt', 'close']);
});

test('close shuts the live generation down without interrupt and arms no more timers', async () => {
  const { lifecycle, queries } = rig({ idleTtlMs: 5 });
  lifecycle.ensure();
  await lifecycle.close();
  lifecycle.armIdle();
  assert.deepEqual(queries[0]?.calls, ['close']);
  assert.equal(lifecycle.current, undefined);
});
