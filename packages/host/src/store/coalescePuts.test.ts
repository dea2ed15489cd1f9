import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coalescePuts } from './coalescePuts.ts';
import type { WriteUnit } from './hostStore.ts';
import { SqliteHostStore } from './sqlite/sqliteHostStore.ts';
import { testSession, testTextMessage, testTurn } from './testRecords.ts';

const title = (n: number) => ({ type: 'title' as const, data: { session_id: 's1', title: `t${n}` } });

/** A turn that starts, streams into one row three times and ends, as a batch of one session's events does. */
function streamingUnits(): WriteUnit[] {
  return [
    {
      turns: [testTurn('s1', 't1', 0)],
      messages: [testTextMessage('s1', 't1', 0, 'He', { status: 'streaming' })],
      sessionEvents: [title(1)],
    },
    { messages: [testTextMessage('s1', 't1', 0, 'Hello', { status: 'streaming' })], sessionEvents: [title(2)] },
    {
      sessions: [testSession('s1', { status: 'idle', updatedAt: 9_000 })],
      turns: [testTurn('s1', 't1', 0, { status: 'completed', endedAt: 9_000 })],
      messages: [
        testTextMessage('s1', 't1', 0, 'Hello world', { status: 'complete' }),
        testTextMessage('s1', 't1', 1, 'a new row'),
      ],
      sessionEvents: [title(3)],
    },
  ];
}

test('a row several units put is put once, where it is first put, with its last value; events stay as they are', () => {
  const coalesced = coalescePuts(streamingUnits());
  assert.equal(coalesced.length, 3);
  assert.deepEqual(
    coalesced[0]?.turns?.map((turn) => turn.status),
    ['completed'],
  );
  assert.deepEqual(
    coalesced[0]?.messages?.map((row) => row.content),
    [[{ type: 'text', text: 'Hello world' }]],
  );
  assert.equal('messages' in coalesced[1]!, false, 'nothing left to put in the second unit');
  assert.equal('turns' in coalesced[2]!, false);
  assert.deepEqual(
    coalesced[2]?.messages?.map((row) => row.id),
    ['m-1'],
    'a row first put by the last unit stays there',
  );
  assert.equal(coalesced[2]?.sessions?.length, 1);
  assert.deepEqual(
    coalesced.map((unit) => unit.sessionEvents),
    streamingUnits().map((unit) => unit.sessionEvents),
  );
});

test('committed as one transaction, coalesced units leave the same rows and events as the units themselves', async () => {
  const stores = [SqliteHostStore.open({ path: ':memory:' }), SqliteHostStore.open({ path: ':memory:' })];
  for (const store of stores) await store.commit({ sessions: [testSession('s1')] });
  await stores[0]!.commitMany(streamingUnits());
  await stores[1]!.commitMany(coalescePuts(streamingUnits()));
  const [plain, coalesced] = await Promise.all(
    stores.map(async (store) => ({
      session: await store.getSession('s1'),
      turns: await store.listTurns('s1'),
      messages: (await store.listMessages('s1', { limit: 10 })).messages,
      events: await store.readSessionEvents('s1', 0, 10),
    })),
  );
  assert.deepEqual(coalesced, plain);
  assert.equal(plain?.messages.length, 2);
  for (const store of stores) await store.close();
});

test('units that copy a transcript (a fork reads rows inside the transaction) are left as they are', () => {
  const units: WriteUnit[] = [
    ...streamingUnits(),
    { copyTranscript: { fromSessionId: 's1', toSessionId: 's2', throughTurnId: 't1' } },
  ];
  assert.equal(coalescePuts(units), units);
  const one = [streamingUnits()[0]!];
  assert.equal(coalescePuts(one), one);
});
