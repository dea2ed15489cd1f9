import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostClient, type SessionEvent } from '@outrigger/host-api';
import { sessionReducer } from './sessionReducer.ts';
import { emptySessionState } from './sessionState.ts';
import { SessionStore } from './sessionStore.ts';
import { within } from './testing/deadline.ts';
import { FakeTimers, settle } from './testing/fakeTimers.ts';
import { snapshot } from './testing/fixtures.ts';
import { recordedTurn } from './testing/recordedTurn.ts';
import { snapshotOf } from './testing/snapshotOf.ts';
import { sseFrame } from './testing/sseFrame.ts';

/** A host that knows one session's event log: its snapshot at `snapshotSeq` and its stream after `Last-Event-ID`. */
function fakeHost(log: SessionEvent[], snapshotSeq: number) {
  const streamRequests: string[] = [];
  let view = sessionReducer(emptySessionState('s1'), { type: 'snapshot', snapshot: snapshot() });
  for (const event of log.filter((e) => e.data.seq <= snapshotSeq))
    view = sessionReducer(view, { type: 'event', event, receivedAt: 0 });
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = new URL(String(url), 'http://host').pathname;
    if (path === '/api/sessions/s1') return Response.json(snapshotOf(view));
    if (path === '/api/sessions/s1/events') {
      const headers = (init?.headers ?? {}) as Record<string, string>;
      const after = Number(headers['last-event-id']);
      streamRequests.push(String(after));
      // Replays overlap on purpose: a host may resend the event at the watermark.
      const frames = log.filter((e) => e.data.seq >= after).map(sseFrame);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(frames.join('')));
          init?.signal?.addEventListener('abort', () => controller.close());
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    }
    return new Response('{}', { status: 404 });
  };
  return { client: new HostClient({ fetch: fetch as typeof globalThis.fetch }), streamRequests };
}

/**
 * Store options for these tests: the stream's timers are fake, so a store a failed test never stopped holds
 * no real timer (a dead-stream check, a backoff) and the file still ends once its deadline fails the test.
 */
const offClock = () => ({ now: () => 0, stream: { timers: new FakeTimers() } });

test('a reload mid-turn (snapshot, then the stream after its lastSeq) shows the same transcript once', async () => {
  const log = recordedTurn();
  const watchedAll = fakeHost(log, 0);
  const reloaded = fakeHost(log, 9);
  const a = new SessionStore(watchedAll.client, 's1', offClock());
  const b = new SessionStore(reloaded.client, 's1', offClock());
  const runs = [a.start(), b.start()];
  // Stopped whatever happens: a failed assertion must not leave streams whose real timers keep the file running.
  try {
    await settle();
    assert.deepEqual(reloaded.streamRequests, ['9']);
    assert.equal(a.view.lastSeq, log.length);
    assert.equal(b.view.lastSeq, log.length);
    assert.deepEqual(b.view.order, a.view.order);
    assert.deepEqual(b.view.rows, a.view.rows);
    assert.equal(b.view.session?.runningTurnId, null);
    assert.equal(b.screen.get().connection, 'live');
  } finally {
    a.stop();
    b.stop();
    await within('both session stores to end after stop()', Promise.all(runs));
  }
});

test('a snapshot that cannot be loaded is reported, not shown as an empty session', async () => {
  const client = new HostClient({
    fetch: async () => Response.json({ error: { code: 'not_found', message: 'no such session' } }, { status: 404 }),
  });
  const store = new SessionStore(client, 'nope');
  await within('start() to end on a snapshot it cannot load', store.start());
  assert.equal(store.screen.get().loadError, 'no such session');
  assert.equal(store.view.session, null);
});

test('a start overtaken by a stop opens no stream (React StrictMode mounts twice)', async () => {
  const host = fakeHost(recordedTurn(), 3);
  const store = new SessionStore(host.client, 's1', offClock());
  const first = store.start();
  store.stop();
  const second = store.start();
  try {
    await settle();
    assert.deepEqual(host.streamRequests, ['3']);
  } finally {
    store.stop();
    await within('both starts to end after stop()', Promise.all([first, second]));
  }
});

test('a hidden tab lets go of its stream and catches up from its last seq when shown again', async () => {
  const log = recordedTurn();
  const host = fakeHost(log, 3);
  const store = new SessionStore(host.client, 's1', offClock());
  store.pause(); // opened in a background tab
  const running = store.start();
  try {
    await settle();
    assert.deepEqual(host.streamRequests, [], 'no stream while hidden');
    assert.equal(store.view.lastSeq, 3, 'the snapshot is there');
    store.resume();
    await settle();
    assert.deepEqual(host.streamRequests, ['3']);
    assert.equal(store.view.lastSeq, log.length);
    assert.equal(store.screen.get().connection, 'live');
    store.pause();
    await settle();
    assert.equal(store.screen.get().connection, 'live', 'a pause is not shown as a stopped stream');
    store.resume();
    await settle();
    assert.deepEqual(host.streamRequests, ['3', String(log.length)], 'shown again: from where it was');
    assert.equal(store.screen.get().connection, 'live');
  } finally {
    store.stop();
    await within('the session store to end after stop()', running);
  }
});

test('a session the host refuses to load for this browser (401) says unauthorized, not disconnected', async () => {
  const fetch = async (): Promise<Response> =>
    Response.json({ error: { code: 'unauthorized', message: 'a wrong token' } }, { status: 401 });
  const store = new SessionStore(new HostClient({ fetch: fetch as typeof globalThis.fetch }), 's1');
  await within('start() to end on a 401', store.start());
  assert.equal(store.screen.get().connection, 'unauthorized');
  assert.notEqual(store.screen.get().loadError, null);
});

test('event listeners get each new event once: not the ones the snapshot had, not a replay', async () => {
  const log = recordedTurn();
  const host = fakeHost(log, 3);
  const store = new SessionStore(host.client, 's1', offClock());
  const seen: number[] = [];
  const unlisten = store.onEvent((event) => seen.push(event.data.seq));
  const running = store.start();
  try {
    await settle();
    // The fake host replays from the watermark itself (seq 3), as a host may.
    assert.deepEqual(
      seen,
      log.filter((event) => event.data.seq > 3).map((event) => event.data.seq),
    );
    unlisten();
  } finally {
    store.stop();
    await within('the session store to end after stop()', running);
  }
});
