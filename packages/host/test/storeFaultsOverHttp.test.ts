import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pollUntil } from '@outrigger/claude-sdk-sidecar/testing';
import { HostApiError, type SseFrame } from '@outrigger/host-api';
import { hostServiceFactory } from '../src/hostCore.ts';
import { caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { FaultInjectingStore } from '../src/store/faultInjectingStore.ts';
import { modelRequestsWith } from './harness/scenarios.ts';
import { isDoneOf, lastSeqOf, readEventsUntil, seqsOf } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * A store write that fails (issue 11), injected at the store interface around the real SQLite store of a
 * real host (the tests run as root, so file permissions cannot make a disk read-only or full): the request
 * that needed the write gets a clear 503, nothing of it is half-written, reads keep working, and a turn whose
 * events could not be stored for a while still ends with exactly one done once the store takes writes again,
 * with nothing it streamed lost.
 */

const cases = caseScripts();
let testHost: TestHost;
let store: FaultInjectingStore;

before(async () => {
  testHost = await startTestHost({
    rules: [cases.rule],
    createService: hostServiceFactory({
      wrapStore: (inner) => {
        store = new FaultInjectingStore(inner);
        return store;
      },
    }),
  });
});
after(async () => {
  store?.heal();
  await testHost?.close();
});

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;

async function newSession(title: string): Promise<string> {
  return (await testHost.client.call('createSession', { body: { cwd: testHost.cwd, title } })).id;
}

/** Every read route of a session answers. */
async function assertReadsWork(sessionId: string): Promise<void> {
  const { client } = testHost;
  await client.call('getSession', { params: { id: sessionId } });
  await client.call('listMessages', { params: { id: sessionId } });
  await client.call('listSessions');
  await client.call('listInteractions', { query: { status: 'pending' } });
  await client.call('listTasks', { query: {} });
  await client.call('info');
}

test('a prompt the store refuses: 503 store_unavailable, no turn or message kept, reads work, the retry runs once', async () => {
  const sessionId = await newSession('refused prompt');
  const prompt = cases.prompt('refused at first', { prompt: text('Accepted the second time.') });
  const before = await testHost.client.call('listMessages', { params: { id: sessionId } });
  store.failWrite(1);
  await assert.rejects(
    testHost.client.call('postTurn', { params: { id: sessionId }, body: { prompt, clientMessageId: 'refused-1' } }),
    (error: unknown) =>
      error instanceof HostApiError &&
      error.status === 503 &&
      error.code === 'store_unavailable' &&
      error.message.length > 0,
  );
  assert.deepEqual(await testHost.client.call('listMessages', { params: { id: sessionId } }), before, 'nothing kept');
  const snapshot = await testHost.client.call('getSession', { params: { id: sessionId } });
  assert.equal(snapshot.openTurn, null);
  assert.equal(snapshot.session.status, 'idle');
  await assertReadsWork(sessionId);
  assert.equal(modelRequestsWith(testHost.mock, prompt).length, 0, 'the model was never asked');

  const from = await lastSeqOf(testHost.client, sessionId);
  const retried = await testHost.client.call('postTurn', {
    params: { id: sessionId },
    body: { prompt, clientMessageId: 'refused-1' },
  });
  assert.equal(retried.replayed, false, 'the first attempt left nothing to replay');
  const frames = await readEventsUntil(testHost.client, sessionId, isDoneOf(retried.turnId), { lastEventId: from });
  assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'completed');
});

test('a prompt whose commit the store kept without confirming it runs once; a retry is a replay', async () => {
  const sessionId = await newSession('lost ack');
  const prompt = cases.prompt('kept but unconfirmed', { prompt: text('Answered once.') });
  const from = await lastSeqOf(testHost.client, sessionId);
  store.failWrite(1, 'lose_ack');
  const first = await testHost.client.call('postTurn', {
    params: { id: sessionId },
    body: { prompt, clientMessageId: 'lost-ack-1' },
  });
  assert.equal(first.replayed, false, 'the turn the store kept is the one that runs');
  const retried = await testHost.client.call('postTurn', {
    params: { id: sessionId },
    body: { prompt, clientMessageId: 'lost-ack-1' },
  });
  assert.deepEqual([retried.turnId, retried.replayed], [first.turnId, true]);
  const frames = await readEventsUntil(testHost.client, sessionId, isDoneOf(first.turnId), { lastEventId: from });
  assert.equal(frames.filter((frame) => frame.event === 'done').length, 1, 'one done');
  assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'completed');
  const page = await testHost.client.call('listMessages', { params: { id: sessionId } });
  assert.equal(page.turns.length, 1, 'one turn for the one clientMessageId');
  assert.equal(modelRequestsWith(testHost.mock, prompt).length, 1, 'the model was asked once');
  assert.ok((await testHost.logRecords()).some((record) => record.event === 'session.commit_unconfirmed'));
});

test('the store refusing every write while a turn streams and ends: one done after it heals, nothing streamed lost', async () => {
  const sessionId = await newSession('store down mid-turn');
  const from = await lastSeqOf(testHost.client, sessionId);
  // Two chunks 1.5 s apart: the outage begins once the first is stored, so the second, the final text and
  // the turn's end all come from the sidecar while the store refuses writes.
  const answer = 'first half, then the second half of the answer.';
  const { turnId } = await testHost.client.call('postTurn', {
    params: { id: sessionId },
    body: {
      prompt: cases.prompt('stream through an outage', {
        prompt: { content: [{ type: 'text', text: answer, chunkSize: 11, chunkDelayMs: 1_500 }] },
      }),
    },
  });
  const live = readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from, timeoutMs: 90_000 });
  await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });

  store.failAllWrites();
  const refusedBefore = store.failedWrites.length;
  // The next chunk was refused, then tried again twice (50 + 100 ms): the end of the turn is queued behind it.
  await pollUntil(
    () => (store.failedWrites.length >= refusedBefore + 3 ? true : undefined),
    'the rest of the turn to meet the outage',
    30_000,
  );
  await assertReadsWork(sessionId);
  const during = await testHost.client.call('getSession', { params: { id: sessionId } });
  assert.equal(during.openTurn?.id, turnId, 'the turn is not over while its end is not stored');
  assert.ok(
    (await testHost.logRecords()).some((record) => record.event === 'session.store_retry'),
    'the outage is in the log',
  );
  store.heal();

  const frames = await live;
  const ofTurn = frames.filter((frame) => dataOf<{ turnId?: string }>(frame).turnId === turnId);
  assert.equal(ofTurn.filter((frame) => frame.event === 'done').length, 1, 'exactly one done');
  assert.equal(ofTurn.at(-1)?.event, 'done');
  assert.equal(dataOf<{ outcome: string }>(ofTurn.at(-1)).outcome, 'completed');
  const seqs = seqsOf(frames);
  assert.deepEqual(
    seqs,
    seqs.map((_, index) => from + 1 + index),
    'the stream is gapless',
  );
  const page = await testHost.client.call('listMessages', { params: { id: sessionId } });
  const row = page.messages.find((message) => message.turnId === turnId && message.role === 'assistant');
  const stored = row?.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  assert.equal(stored, answer, 'the whole answer is stored');
  assert.equal(row?.status, 'complete');

  // Every client sees the same log: a replay equals what was streamed live.
  const replay = await readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from });
  assert.deepEqual(replay, frames);

  const after = await lastSeqOf(testHost.client, sessionId);
  const next = await testHost.client.call('postTurn', {
    params: { id: sessionId },
    body: { prompt: cases.prompt('and after the outage?', { prompt: text('Still here.') }) },
  });
  const nextFrames = await readEventsUntil(testHost.client, sessionId, isDoneOf(next.turnId), { lastEventId: after });
  assert.equal(dataOf<{ outcome: string }>(nextFrames.at(-1)).outcome, 'completed');
});
