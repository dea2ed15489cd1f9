import assert from 'node:assert/strict';
import { test } from 'node:test';
import { syncSdkTasks, taskUnit } from '../projection/taskProjection.ts';
import { FaultInjectingStore, openFaultInjectingSqliteStore } from './faultInjectingStore.ts';
import { SqliteHostStore } from './sqlite/sqliteHostStore.ts';
import { StoreError } from './storeError.ts';
import { testSession } from './testRecords.ts';

const title = (sessionId: string, text: string) => ({
  sessionEvents: [{ type: 'title' as const, data: { session_id: sessionId, title: text } }],
});

test('the n-th write from now fails and keeps nothing; the writes around it pass', async () => {
  const store = new FaultInjectingStore(SqliteHostStore.open({ path: ':memory:' }));
  await store.commit({ sessions: [testSession('s1')] });
  store.failWrite(2);
  await store.commit(title('s1', 'a'));
  await assert.rejects(store.commit(title('s1', 'b')), StoreError);
  await store.commit(title('s1', 'c'));
  assert.deepEqual(store.failedWrites, [3]);
  assert.equal(store.writeCount, 4);
  const titles = (await store.readSessionEvents('s1', 0, 10)).map((e) => (e.type === 'title' ? e.data.title : ''));
  assert.deepEqual(titles, ['a', 'c']);
  await store.close();
});

test('lose_ack keeps the write but tells the caller it failed; failAllWrites holds until heal', async () => {
  const store = new FaultInjectingStore(SqliteHostStore.open({ path: ':memory:' }));
  await store.commit({ sessions: [testSession('s1')] });
  store.failWrite(1, 'lose_ack');
  await assert.rejects(store.commit(title('s1', 'kept')), /lose_ack/);
  assert.equal(await store.lastSessionSeq('s1'), 1, 'the write happened');

  store.failAllWrites();
  const plan = syncSdkTasks('s1', [], { turnId: 't', todos: [{ content: 'x', status: 'pending' }], now: 1 });
  await assert.rejects(store.commit(taskUnit(plan)), StoreError);
  await assert.rejects(store.commitMany([title('s1', 'x')]), StoreError);
  assert.deepEqual(await store.listTasks('s1'), []);
  store.heal();
  await store.commit(title('s1', 'after'));
  assert.equal(await store.lastSessionSeq('s1'), 2);
  await store.close();
});

test('at_commit runs the write and then fails its COMMIT; a store that cannot reach COMMIT refuses to plan it', async () => {
  const store = openFaultInjectingSqliteStore({ path: ':memory:' });
  await store.commit({ sessions: [testSession('s1')] });
  store.failWrite(1, 'at_commit');
  await assert.rejects(store.commit(title('s1', 'rolled back')), /the store refused a write: injected COMMIT failure/);
  await store.commit(title('s1', 'kept'));
  const events = await store.readSessionEvents('s1', 0, 10);
  assert.deepEqual(
    events.map((e) => [e.data.seq, e.type === 'title' ? e.data.title : '']),
    [[1, 'kept']],
  );
  // Around a store it cannot reach into, the write would simply commit and a test would pass for nothing.
  const plain = new FaultInjectingStore(SqliteHostStore.open({ path: ':memory:' }));
  assert.throws(() => plain.failWrite(1, 'at_commit'), /openFaultInjectingSqliteStore/);
  await store.close();
  await plain.close();
});
