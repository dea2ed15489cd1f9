import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostApiError, type PostTurnBody } from '@outrigger/host-api';
import { Outbox } from './outbox.ts';
import { within } from './testing/deadline.ts';
import { FakeTimers, settle } from './testing/fakeTimers.ts';

const accepted = { turnId: 't1', queued: false, steered: false, replayed: false };

test('a network failure is retried with the same clientMessageId until the host answers', async () => {
  const timers = new FakeTimers();
  const bodies: PostTurnBody[] = [];
  let failures = 2;
  const outbox = new Outbox({
    timers,
    newId: () => 'c-1',
    post: async (_sessionId, body) => {
      bodies.push(body);
      if (failures-- > 0) throw new TypeError('fetch failed');
      return accepted;
    },
  });
  const sent = outbox.send('s1', { prompt: 'hi' });
  await settle();
  assert.equal(outbox.items.get()[0]?.state, 'waiting');
  await timers.advance(10_000);
  assert.deepEqual(await within('the retried send to be accepted', sent), accepted);
  assert.deepEqual(
    bodies.map((body) => body.clientMessageId),
    ['c-1', 'c-1', 'c-1'],
  );
  assert.equal(outbox.items.get()[0]?.state, 'accepted');
  outbox.forget('c-1');
  assert.deepEqual(outbox.items.get(), []);
});

test('a refusal (4xx) is not retried; the prompt stays for the person, and a retry keeps the id', async () => {
  let calls = 0;
  const outbox = new Outbox({
    newId: () => 'c-2',
    post: async () => {
      calls += 1;
      if (calls === 1) throw new HostApiError(400, 'validation_failed', 'the prompt is too long');
      return accepted;
    },
  });
  assert.equal(await within('the refused send to settle', outbox.send('s1', { prompt: 'x' })), null);
  const failed = outbox.items.get()[0];
  assert.equal(failed?.state, 'failed');
  assert.equal(failed?.error, 'the prompt is too long');
  assert.equal(failed?.body.prompt, 'x');
  assert.deepEqual(await within('the retry to be accepted', outbox.retry('c-2')), accepted);
  assert.equal(calls, 2);
});

test('it gives up after maxAttempts and says why', async () => {
  const timers = new FakeTimers();
  const outbox = new Outbox({
    timers,
    maxAttempts: 2,
    newId: () => 'c-3',
    post: async () => {
      throw new HostApiError(503, 'sidecar_unavailable', 'the sidecar did not answer');
    },
  });
  const sent = outbox.send('s1', { prompt: 'x', mode: 'steer' });
  await settle();
  await timers.advance(10_000);
  assert.equal(await within('the send to give up', sent), null);
  assert.equal(outbox.items.get()[0]?.state, 'failed');
  assert.equal(outbox.items.get()[0]?.attempts, 2);
  assert.equal(outbox.items.get()[0]?.body.mode, 'steer');
});

test('a prompt unsent at a reload is sent on by the next page with the same id', async () => {
  const map = new Map<string, string>();
  const storage = {
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, value),
    removeItem: (key: string) => void map.delete(key),
  };
  const timers = new FakeTimers();
  const offline = new Outbox({
    storage,
    timers,
    newId: () => 'c-9',
    post: async () => {
      throw new TypeError('fetch failed');
    },
  });
  void offline.send('s1', { prompt: 'sent while offline' });
  await settle();
  assert.equal(offline.items.get()[0]?.state, 'waiting');
  const seen: (string | undefined)[] = [];
  const reloaded = new Outbox({
    storage,
    post: async (_sessionId, body) => {
      seen.push(body.clientMessageId);
      return accepted;
    },
  });
  assert.equal(reloaded.items.get()[0]?.body.prompt, 'sent while offline');
  reloaded.resume();
  await settle();
  assert.deepEqual(seen, ['c-9']);
  assert.equal(reloaded.items.get()[0]?.state, 'accepted');
  reloaded.forget('c-9');
  assert.equal(map.has('outrigger.outbox'), false);
});
