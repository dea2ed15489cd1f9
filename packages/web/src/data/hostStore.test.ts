import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostClient } from '@outrigger/host-api';
import { HostStore } from './hostStore.ts';
import { within } from './testing/deadline.ts';
import { FakeTimers, settle } from './testing/fakeTimers.ts';
import { interaction, summary } from './testing/fixtures.ts';
import { MemoryTabShares } from './testing/memoryTabShare.ts';
import { sseFrame } from './testing/sseFrame.ts';

const infoResponse = () =>
  Response.json({
    version: '1',
    modelBackend: 'demo',
    modelBackendReason: '',
    defaultCwd: '/',
    allowRoots: [],
    limits: {},
  });

/**
 * The stream's timers are fake, so a store a failed test never stopped holds no real timer and the file
 * still ends once its deadline fails the test.
 */
const offClock = () => ({ stream: { timers: new FakeTimers() } });

function fakeHost(lists: { sessionsSeq?: number; interactionsSeq?: number }) {
  const streamAfter: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = new URL(String(url), 'http://host').pathname;
    if (path === '/api/info') return infoResponse();
    if (path === '/api/sessions')
      return Response.json({ sessions: [summary({ id: 'a' })], lastSeq: lists.sessionsSeq });
    if (path === '/api/interactions')
      return Response.json({
        interactions: [interaction({ requestId: 'r1', session_id: 'a' })],
        lastSeq: lists.interactionsSeq,
      });
    if (path === '/api/events') {
      const headers = (init?.headers ?? {}) as Record<string, string>;
      streamAfter.push(headers['last-event-id'] ?? '');
      const resolved = sseFrame({
        type: 'permission_resolved',
        data: { seq: 8, session_id: 'a', turnId: 't1', requestId: 'r1', status: 'answered', resolution: 'answered' },
      });
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(resolved));
            init?.signal?.addEventListener('abort', () => controller.close());
          },
        }),
      );
    }
    return new Response('{}', { status: 404 });
  };
  return { client: new HostClient({ fetch: fetch as typeof globalThis.fetch }), streamAfter };
}

test('the host stream opens after the older of the two lists, and its events apply over them', async () => {
  const host = fakeHost({ sessionsSeq: 10, interactionsSeq: 7 });
  const store = new HostStore(host.client, offClock());
  const running = store.start();
  await settle();
  assert.deepEqual(host.streamAfter, ['7']);
  assert.deepEqual(store.screen.get().view.inbox, {}, 'the interaction resolved at seq 8 left the inbox');
  assert.equal(store.screen.get().connection, 'live');
  store.stop();
  await within('the host store to end after stop()', running);
});

test('a host that does not say its lists’ seq is replayed from the start', async () => {
  const host = fakeHost({});
  const store = new HostStore(host.client, offClock());
  const running = store.start();
  await settle();
  assert.deepEqual(host.streamAfter, ['0']);
  assert.equal(store.screen.get().view.sessions.a?.id, 'a');
  store.stop();
  await within('the host store to end after stop()', running);
});

/** A host whose log grows on demand: lists at the current seq, streams replaying after Last-Event-ID then live. */
function liveHost() {
  const log: { seq: number; type: string; data: { seq: number; [field: string]: unknown } }[] = [];
  const sessions = new Map<string, ReturnType<typeof summary>>();
  const streams = new Set<{ push: (entry: (typeof log)[number]) => void }>();
  const opens: number[] = [];
  let listReads = 0;
  const frameOf = (entry: (typeof log)[number]) => new TextEncoder().encode(sseFrame(entry));
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = new URL(String(url), 'http://host').pathname;
    const lastSeq = log.length;
    if (path === '/api/info') return infoResponse();
    if (path === '/api/sessions') {
      listReads += 1;
      return Response.json({ sessions: [...sessions.values()], lastSeq });
    }
    if (path === '/api/interactions') return Response.json({ interactions: [], lastSeq });
    if (path === '/api/events') {
      const after = Number(((init?.headers ?? {}) as Record<string, string>)['last-event-id'] ?? 0);
      opens.push(after);
      return new Response(
        new ReadableStream({
          start(controller) {
            const stream = { push: (entry: (typeof log)[number]) => controller.enqueue(frameOf(entry)) };
            for (const entry of log.filter((item) => item.seq > after)) stream.push(entry);
            streams.add(stream);
            init?.signal?.addEventListener('abort', () => {
              streams.delete(stream);
              controller.close();
            });
          },
        }),
      );
    }
    return new Response('{}', { status: 404 });
  };
  return {
    client: new HostClient({ fetch: fetch as typeof globalThis.fetch }),
    opens,
    listReads: () => listReads,
    /** A session created or changed: stored at the next seq, then published to the open streams. */
    change(id: string, title: string) {
      const session = summary({ id, title });
      sessions.set(id, session);
      const entry = { seq: log.length + 1, type: 'session', data: { seq: log.length + 1, session } };
      log.push(entry);
      for (const stream of streams) stream.push(entry);
    },
  };
}

/** Runs `body` with started stores and stops them whatever happens (a failed assertion must not leave streams open). */
async function withTabs(stores: HostStore[], body: () => Promise<void>): Promise<void> {
  const running = stores.map((store) => store.start());
  try {
    await body();
  } finally {
    for (const store of stores) store.stop();
    await within('every tab’s store to end after stop()', Promise.all(running));
  }
}

const titles = (store: HostStore) =>
  Object.values(store.screen.get().view.sessions)
    .map((session) => `${session.id}:${session.title}`)
    .sort();

test('tabs share one host stream: one tab follows it, every tab applies each event and shows its state', async () => {
  const host = liveHost();
  host.change('a', 'first');
  const shares = new MemoryTabShares();
  const tabs = [0, 1, 2].map(() => new HostStore(host.client, { ...offClock(), share: shares.tab() }));
  await withTabs(tabs, async () => {
    await settle();
    assert.deepEqual(host.opens, [1], 'one stream for three tabs, after the lists');
    host.change('b', 'second');
    host.change('a', 'renamed');
    await settle();
    for (const tab of tabs) {
      assert.deepEqual(titles(tab), ['a:renamed', 'b:second']);
      assert.equal(tab.screen.get().connection, 'live');
    }
  });
});

test('when the leading tab closes, the next opens the stream from the last seq it applied: nothing is missed', async () => {
  const host = liveHost();
  const shares = new MemoryTabShares();
  const tabs = [0, 1, 2].map(() => new HostStore(host.client, { ...offClock(), share: shares.tab() }));
  await withTabs(tabs, async () => {
    await settle();
    host.change('a', 'one');
    await settle();
    tabs[0]!.stop();
    host.change('b', 'two'); // while no tab follows the stream
    await settle();
    assert.deepEqual(host.opens, [0, 1], 'the next tab took over after seq 1');
    for (const tab of tabs.slice(1)) assert.deepEqual(titles(tab), ['a:one', 'b:two']);
  });
});

test('a tab that missed a posted frame (a hole in the seqs) loads the lists again', async () => {
  const host = liveHost();
  const shares = new MemoryTabShares();
  const leader = new HostStore(host.client, { ...offClock(), share: shares.tab() });
  const lossy = shares.tab();
  let dropped = 0;
  const follower = new HostStore(host.client, {
    ...offClock(),
    share: {
      ...lossy,
      listen: (receive) =>
        lossy.listen((message) => {
          if (message.kind === 'frame' && message.frame.seq === 1 && dropped++ === 0) return;
          receive(message);
        }),
    },
  });
  await withTabs([leader, follower], async () => {
    await settle();
    const reads = host.listReads();
    host.change('a', 'one'); // lost on its way to the follower
    host.change('b', 'two');
    await settle();
    assert.equal(dropped, 1);
    assert.equal(host.listReads(), reads + 1, 'the hole made the follower read the lists again');
    assert.deepEqual(titles(follower), ['a:one', 'b:two']);
    host.change('c', 'three');
    await settle();
    assert.deepEqual(titles(follower), titles(leader));
  });
});
