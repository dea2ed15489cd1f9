import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openFaultInjectingSqliteStore } from '../store/faultInjectingStore.ts';
import type { WriteUnit } from '../store/hostStore.ts';
import { SqliteHostStore } from '../store/sqlite/sqliteHostStore.ts';
import { testSession } from '../store/testRecords.ts';
import { CommitPublisher } from './commitPublisher.ts';
import { EventHub, type EventLogReader } from './eventHub.ts';
import type { EventStream } from './eventStream.ts';

function titleUnit(sessionId: string, n: number): WriteUnit {
  return { sessionEvents: [{ type: 'title', data: { session_id: sessionId, title: `t${n}` } }] };
}

function hostUnit(n: number): WriteUnit {
  return {
    hostEvents: [
      {
        type: 'permission_resolved',
        data: { session_id: 's1', turnId: 't', requestId: `r${n}`, status: 'answered', resolution: 'answered' },
      },
    ],
  };
}

async function setup(
  options: { maxBuffered?: number; replayPageSize?: number; groupCommit?: boolean; slowReads?: boolean } = {},
) {
  const store = SqliteHostStore.open({ path: ':memory:' });
  await store.commit({ sessions: [testSession('s1'), testSession('s2')] });
  // Slow reads stand for a database across a network: commits and publishes land while a replay read is in flight.
  const lag = () => new Promise((resolve) => setTimeout(resolve, Math.random() < 0.5 ? 0 : 2));
  const reader: EventLogReader = options.slowReads
    ? {
        readSessionEvents: async (...args) => {
          const events = await store.readSessionEvents(...args);
          await lag();
          return events;
        },
        readHostEvents: async (...args) => {
          const events = await store.readHostEvents(...args);
          await lag();
          return events;
        },
      }
    : store;
  const hub = new EventHub(reader, options);
  const publisher = new CommitPublisher(store, hub, { groupCommit: options.groupCommit ?? true });
  return { store, hub, publisher };
}

/** Takes events until `lastSeq` was seen, or the stream ends. */
async function collect<E extends { data: { seq: number } }>(
  stream: EventStream<E>,
  lastSeq: number,
): Promise<number[]> {
  const seqs: number[] = [];
  if (lastSeq === 0) return seqs;
  for await (const event of stream) {
    seqs.push(event.data.seq);
    if (event.data.seq >= lastSeq) break;
  }
  return seqs;
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

test('a stream replays what is stored after its seq, then goes live, gapless and without duplicates', async () => {
  const { store, hub, publisher } = await setup({ replayPageSize: 7 });
  for (let n = 1; n <= 30; n += 1) await publisher.commit(titleUnit('s1', n));
  const stream = hub.openSessionStream('s1', 10);
  const collecting = collect(stream, 60);
  for (let n = 31; n <= 60; n += 1) {
    await publisher.commit(titleUnit('s1', n));
    if (n % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(await collecting, range(11, 60));
  assert.equal(await stream.ended, 'closed', 'breaking out of for-await closes the stream');
  assert.equal(hub.streamCount, 0);
  await store.close();
});

test('many streams opened at random moments during concurrent commits each get exactly their range', async () => {
  const { store, hub, publisher } = await setup({ replayPageSize: 16, groupCommit: true, slowReads: true });
  const total = 2_000;
  const readers: Promise<{ after: number; seqs: number[] }>[] = [];
  const hostReaders: Promise<{ after: number; seqs: number[] }>[] = [];
  const writers: Promise<unknown>[] = [];
  for (let n = 1; n <= total; n += 1) {
    // Two sessions and the host log, committed in bursts so the group commit batches them.
    writers.push(publisher.commit(titleUnit('s1', n)));
    writers.push(publisher.commit(titleUnit('s2', n)));
    if (n % 4 === 0) writers.push(publisher.commit(hostUnit(n)));
    if (n % 50 === 0) {
      const after = Math.floor(Math.random() * n);
      const stream = hub.openSessionStream('s1', after);
      readers.push(collect(stream, total).then((seqs) => ({ after, seqs })));
      const hostAfter = Math.floor((Math.random() * n) / 4);
      hostReaders.push(collect(hub.openHostStream(hostAfter), total / 4).then((seqs) => ({ after: hostAfter, seqs })));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  await Promise.all(writers);
  const deadline = setTimeout(() => hub.shutdown(), 20_000); // a stream that missed an event would wait forever
  const [sessionResults, hostResults] = await Promise.all([Promise.all(readers), Promise.all(hostReaders)]);
  clearTimeout(deadline);
  for (const { after, seqs } of sessionResults) assert.deepEqual(seqs, range(after + 1, total));
  for (const { after, seqs } of hostResults) assert.deepEqual(seqs, range(after + 1, total / 4));
  assert.equal(await store.lastSessionSeq('s2'), total);
  await store.close();
});

test('a stalled consumer is cut with slow_consumer; the others get everything and publishing never waits', async () => {
  const { store, hub, publisher } = await setup({ maxBuffered: 50 });
  const stalled = hub.openSessionStream('s1', 0);
  // It takes one event (so it is live) and then never asks again.
  const first = await (async () => {
    const pending = stalled[Symbol.asyncIterator]().next();
    await publisher.commit(titleUnit('s1', 1));
    return pending;
  })();
  assert.equal(first.value?.data.seq, 1);
  const healthy = Array.from({ length: 10 }, () => collect(hub.openSessionStream('s1', 1), 500));
  let slowest = 0;
  for (let n = 2; n <= 500; n += 1) {
    const started = performance.now();
    const result = await store.commit(titleUnit('s1', n));
    hub.publish(result);
    slowest = Math.max(slowest, performance.now() - started);
    if (n % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(await stalled.ended, 'slow_consumer');
  for (const seqs of await Promise.all(healthy)) assert.deepEqual(seqs, range(2, 500));
  assert.ok(slowest < 1_000, 'no publish waited for the stalled consumer');
  // It reconnects with its last seq and catches up from the store.
  assert.deepEqual(await collect(hub.openSessionStream('s1', 1), 500), range(2, 500));
  await store.close();
});

test('a slow consumer that only replays is never cut: it reads the store at its own pace', async () => {
  const { store, hub, publisher } = await setup({ maxBuffered: 5, replayPageSize: 10 });
  for (let n = 1; n <= 100; n += 1) await publisher.commit(titleUnit('s1', n));
  const stream = hub.openSessionStream('s1', 0);
  const seqs: number[] = [];
  for await (const event of stream) {
    seqs.push(event.data.seq);
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (event.data.seq === 100) break;
  }
  assert.deepEqual(seqs, range(1, 100));
  await store.close();
});

test('shutdown ends every stream, wakes a waiting consumer, and ends later streams at once', async () => {
  const { store, hub } = await setup();
  const a = hub.openSessionStream('s1', 0);
  const b = hub.openHostStream(0);
  const waiting = a[Symbol.asyncIterator]().next();
  await new Promise((resolve) => setImmediate(resolve));
  hub.shutdown();
  assert.deepEqual(await waiting, { done: true, value: undefined });
  assert.equal(await a.ended, 'shutdown');
  assert.equal(await b.ended, 'shutdown');
  const late = hub.openSessionStream('s2', 0);
  assert.equal(await late.ended, 'shutdown');
  assert.deepEqual(await late[Symbol.asyncIterator]().next(), { done: true, value: undefined });
  assert.equal(hub.streamCount, 0);
  await store.close();
});

test('close ends a stream with closed; the others keep going', async () => {
  const { store, hub, publisher } = await setup();
  const closing = hub.openSessionStream('s1', 0);
  const staying = hub.openSessionStream('s1', 0);
  const staysCollecting = collect(staying, 3);
  await publisher.commit(titleUnit('s1', 1));
  closing.close();
  assert.equal(await closing.ended, 'closed');
  await publisher.commit(titleUnit('s1', 2));
  await publisher.commit(titleUnit('s1', 3));
  assert.deepEqual(await staysCollecting, [1, 2, 3]);
  await store.close();
});

test('an event committed but never published reaches live streams from the store at the next publish', async () => {
  const { store, hub, publisher } = await setup();
  const stream = hub.openSessionStream('s1', 0);
  const collecting = collect(stream, 3);
  await publisher.commit(titleUnit('s1', 1));
  await store.commit(titleUnit('s1', 2)); // committed, the publisher "crashed" before publishing it
  await publisher.commit(titleUnit('s1', 3));
  assert.deepEqual(await collecting, [1, 2, 3]);
  await store.close();
});

test('a store read failure rejects the waiting consumer and ends the stream', async () => {
  const { store, hub } = await setup();
  await store.close();
  const stream = hub.openSessionStream('s1', 0);
  await assert.rejects(stream[Symbol.asyncIterator]().next(), /closed/);
  assert.equal(await stream.ended, 'closed');
});

test('the publisher publishes nothing of a refused write and keeps the group going', async () => {
  const { store, hub, publisher } = await setup();
  const stream = hub.openSessionStream('s1', 0);
  const collecting = collect(stream, 2);
  const results = await Promise.allSettled([
    publisher.commit(titleUnit('s1', 1)),
    publisher.commit(titleUnit('no-such-session', 1)),
    publisher.commit(titleUnit('s1', 2)),
  ]);
  assert.deepEqual(
    results.map((result) => result.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(await collecting, [1, 2]);
  await publisher.drain();
  await store.close();
});

test('commitAll commits its units together or not at all, also when its group commit fails', async () => {
  const { store, hub, publisher } = await setup();
  const stream = hub.openSessionStream('s1', 0);
  const collecting = collect(stream, 3);
  // One group (one tick): a lone unit, an atomic pair that breaks on its second unit, an atomic pair that holds.
  const results = await Promise.allSettled([
    publisher.commit(titleUnit('s1', 1)),
    publisher.commitAll([titleUnit('s1', 2), titleUnit('no-such-session', 3)]),
    publisher.commitAll([titleUnit('s1', 4), titleUnit('s1', 5)]),
  ]);
  assert.deepEqual(
    results.map((result) => result.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const stored = await store.readSessionEvents('s1', 0, 10);
  assert.deepEqual(
    stored.map((event) => (event.data as { title: string }).title),
    ['t1', 't4', 't5'],
    'nothing of the broken pair was kept: not even its first unit',
  );
  assert.deepEqual(await collecting, [1, 2, 3], 'published exactly what was stored, in order');
  const fulfilled = results[2] as PromiseFulfilledResult<unknown[]>;
  assert.equal(fulfilled.value.length, 2, 'one result per unit');
  await publisher.drain();
  await store.close();
});

test('an event published while the last replay read is in flight is not lost when the stream turns live', async () => {
  const store = SqliteHostStore.open({ path: ':memory:' });
  await store.commit({ sessions: [testSession('s1')] });
  // The read takes its snapshot at once but hands it over only when the test says, so a commit and its
  // publish land exactly between the store answering and the hub deciding whether to turn live.
  let reads = 0;
  let release: (() => void) | undefined;
  let snapshotTaken: (() => void) | undefined;
  const reader: EventLogReader = {
    readSessionEvents: async (...args) => {
      reads += 1;
      const events = await store.readSessionEvents(...args);
      if (reads === 1) {
        snapshotTaken?.();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      }
      return events;
    },
    readHostEvents: (...args) => store.readHostEvents(...args),
  };
  const hub = new EventHub(reader);
  const publisher = new CommitPublisher(store, hub, { groupCommit: false });
  await publisher.commit(titleUnit('s1', 1));

  const stream = hub.openSessionStream('s1', 0);
  const iterator = stream[Symbol.asyncIterator]();
  const taken = new Promise<void>((resolve) => {
    snapshotTaken = resolve;
  });
  const first = iterator.next();
  await taken;
  // Published while the stream still replays, so it is ignored live; the snapshot in flight lacks it.
  await publisher.commit(titleUnit('s1', 2));
  release?.();
  assert.equal((await first).value?.data.seq, 1);

  // Nothing else is ever published (think of a turn's last event): only the hub's own check can find seq 2.
  let timer: NodeJS.Timeout | undefined;
  const second = await Promise.race([
    iterator.next(),
    new Promise<'missed'>((resolve) => {
      timer = setTimeout(() => resolve('missed'), 1_000);
    }),
  ]);
  clearTimeout(timer);
  if (second === 'missed') assert.fail('the stream went live past seq 2 and waits for an event it already missed');
  assert.equal(second.value?.data.seq, 2);

  // Having caught up it is live: the next event arrives by publish, with no further store read.
  const readsWhenCaughtUp = reads;
  const third = iterator.next();
  await publisher.commit(titleUnit('s1', 3));
  assert.equal((await third).value?.data.seq, 3);
  assert.equal(reads, readsWhenCaughtUp, 'a caught-up stream turns live instead of polling the store');
  stream.close();
  await store.close();
});

test('a write whose COMMIT fails publishes nothing, leaves no seq in the log, and the next write takes that seq', async () => {
  const store = openFaultInjectingSqliteStore({ path: ':memory:' });
  await store.commit({ sessions: [testSession('s1')] });
  const hub = new EventHub(store);
  // One unit per transaction, so the failing COMMIT is that unit's own and no group retry hides it.
  const publisher = new CommitPublisher(store, hub, { groupCommit: false });
  const stream = hub.openSessionStream('s1', 0);
  const seen: string[] = [];
  const reading = (async () => {
    for await (const event of stream) {
      seen.push(`${event.data.seq}:${(event.data as { title: string }).title}`);
      if (event.data.seq >= 2) break;
    }
  })();
  await publisher.commit(titleUnit('s1', 1));

  // Every statement of t2 runs and its seq is assigned; only then does COMMIT throw.
  store.failWrite(1, 'at_commit');
  await assert.rejects(publisher.commit(titleUnit('s1', 2)), /injected COMMIT failure/);
  assert.equal(await store.lastSessionSeq('s1'), 1, 'the rolled-back seq is not the log’s last');
  await publisher.commit(titleUnit('s1', 3));
  await reading;

  // Had t2 been published as seq 2, the stream would hold it and drop t3 as a duplicate of seq 2.
  assert.deepEqual(seen, ['1:t1', '2:t3']);
  const stored = await store.readSessionEvents('s1', 0, 10);
  assert.deepEqual(
    stored.map((event) => `${event.data.seq}:${(event.data as { title: string }).title}`),
    ['1:t1', '2:t3'],
  );
  assert.deepEqual(store.failedWrites, [3]);
  await store.close();
});
