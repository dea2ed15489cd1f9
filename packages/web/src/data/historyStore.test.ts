import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HistoryList, HostClient, type SseFrame } from '@outrigger/host-api';
import { HistoryStore } from './historyStore.ts';
import { FakeTimers, settle } from './testing/fakeTimers.ts';
import { claudeId, historyList, historySession } from './testing/historyFixtures.ts';

/** A host whose list is what the test says; each list request is recorded with its query. */
function fakeHost() {
  const queries: (string | null)[] = [];
  let revision = 1;
  let titles = ['Add a flag'];
  const list = (q: string | null): HistoryList =>
    historyList(
      [
        {
          cwd: '/work/api',
          cwdExists: true,
          sessions: titles
            .filter((title) => q === null || title.toLowerCase().includes(q.toLowerCase()))
            .map((title, n) => historySession({ claudeSessionId: claudeId(n), title })),
        },
      ],
      { revision },
    );
  const fetch = async (url: string | URL | Request): Promise<Response> => {
    const parsed = new URL(String(url), 'http://host');
    const q = parsed.searchParams.get('q');
    queries.push(q);
    return Response.json(list(q));
  };
  return {
    client: new HostClient({ fetch: fetch as typeof globalThis.fetch }),
    queries,
    change(next: string[]) {
      titles = next;
      revision += 1;
      return revision;
    },
  };
}

/** A stream per connection that the test feeds; `end()` breaks the current one. */
function fakeStreams() {
  const connections: { push(frame: SseFrame): void; end(): void }[] = [];
  const open = async (_after: number, signal: AbortSignal): Promise<AsyncIterable<SseFrame>> => {
    const queue: SseFrame[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    signal.addEventListener('abort', () => wake?.());
    connections.push({
      push: (frame) => {
        queue.push(frame);
        wake?.();
      },
      end: () => {
        ended = true;
        wake?.();
      },
    });
    return (async function* () {
      let seq = 0;
      while (!signal.aborted) {
        const frame = queue.shift();
        if (frame !== undefined) {
          // As `historyStreamOpener` numbers them.
          yield { ...frame, id: String(++seq + connections.length * 1000) };
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    })();
  };
  return { open, connections };
}

const changed = (revision: number): SseFrame => ({
  id: undefined,
  event: 'history_changed',
  data: { revision, claudeSessionIds: [claudeId(1)] },
});

test('loads the list, then loads again on history_changed, once for a burst, not for the revision it shows', async () => {
  const host = fakeHost();
  const streams = fakeStreams();
  const timers = new FakeTimers();
  const store = new HistoryStore(host.client, { timers, stream: { open: streams.open, timers } });
  await store.start();
  await settle();
  assert.equal(store.screen.get().list?.total, 1);
  assert.equal(store.screen.get().connection, 'live');

  streams.connections[0]!.push(changed(1));
  await timers.advance(1000);
  assert.equal(host.queries.length, 1, 'the revision shown already: nothing to load');

  const revision = host.change(['Add a flag', 'Fix the build']);
  streams.connections[0]!.push(changed(revision));
  streams.connections[0]!.push(changed(revision));
  await settle();
  await timers.advance(1000);
  assert.equal(host.queries.length, 2, 'one load for the burst');
  assert.equal(store.screen.get().list?.total, 2);
  store.stop();
});

test('after a break the list loads again (what changed meanwhile was not replayed)', async () => {
  const host = fakeHost();
  const streams = fakeStreams();
  const timers = new FakeTimers();
  const store = new HistoryStore(host.client, { timers, stream: { open: streams.open, timers, backoffMs: () => 100 } });
  await store.start();
  await settle();
  host.change(['Add a flag', 'Written while the stream was down']);
  streams.connections[0]!.end();
  await settle();
  await timers.advance(200);
  assert.equal(streams.connections.length, 2, 'reconnected');
  assert.equal(store.screen.get().connection, 'live');
  assert.equal(store.screen.get().list?.total, 2);
  store.stop();
  assert.equal(store.screen.get().connection, 'live', 'stopped by us: the screen keeps its last state');
});

test('typing searches once per pause, and an answer for an older query is never shown', async () => {
  const host = fakeHost();
  host.change(['Add a flag', 'Fix the build', 'Fix the docs']);
  const timers = new FakeTimers();
  const streams = fakeStreams();
  const store = new HistoryStore(host.client, { timers, debounceMs: 200, stream: { open: streams.open, timers } });
  await store.start();
  store.search('f');
  store.search('fi');
  store.search('fix');
  assert.equal(store.screen.get().searching, true);
  await timers.advance(250);
  assert.deepEqual(host.queries, [null, 'fix']);
  const screen = store.screen.get();
  assert.equal(screen.searching, false);
  assert.deepEqual(
    screen.list?.projects[0]?.sessions.map((session) => session.title),
    ['Fix the build', 'Fix the docs'],
  );
  store.search('  ');
  await timers.advance(250);
  assert.equal(host.queries.at(-1), null, 'blank is no query');
  store.stop();
});

test('a hidden tab lets go of the stream; visible again, it follows and loads the list once more', async () => {
  const host = fakeHost();
  const streams = fakeStreams();
  const timers = new FakeTimers();
  const store = new HistoryStore(host.client, { timers, stream: { open: streams.open, timers } });
  await store.start();
  await settle();
  store.pause();
  await settle();
  host.change(['Add a flag', 'Written while hidden']);
  store.resume();
  await settle();
  assert.equal(streams.connections.length, 2);
  assert.equal(store.screen.get().list?.total, 2);
  store.stop();
});
