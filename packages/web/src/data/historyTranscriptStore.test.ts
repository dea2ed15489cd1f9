import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HistoryTranscript, HostClient } from '@outrigger/host-api';
import { HistoryTranscriptStore } from './historyTranscriptStore.ts';
import { userRow } from './testing/fixtures.ts';
import { claudeId, historySession } from './testing/historyFixtures.ts';
import { timeline } from './timeline.ts';

/** A transcript of `total` rows served in pages of two, newest first; every request is recorded. */
function fakeHost(total: number) {
  const requests: string[] = [];
  const fetch = async (url: string | URL | Request): Promise<Response> => {
    const parsed = new URL(String(url), 'http://host');
    requests.push(parsed.pathname + parsed.search);
    const before = Number(parsed.searchParams.get('before') ?? total);
    const from = Math.max(0, before - 2);
    const body: HistoryTranscript = {
      session: historySession({ claudeSessionId: claudeId(1) }),
      page: {
        messages: Array.from({ length: before - from }, (_, i) =>
          userRow(`r${from + i}`, `row ${from + i}`, { position: from + i }),
        ),
        turns: [],
        hasMore: from > 0,
      },
      totalRows: total,
      notes: [{ kind: 'corrupt_lines', message: '1 line could not be read', count: 1 }],
    };
    return Response.json(body);
  };
  return { client: new HostClient({ fetch: fetch as typeof globalThis.fetch }), requests };
}

test('the newest page first, then older pages before the first row, folded in order', async () => {
  const host = fakeHost(5);
  const store = new HistoryTranscriptStore(host.client, claudeId(1));
  await store.start();
  let screen = store.screen.get();
  assert.equal(screen.loaded, true);
  assert.equal(screen.notes[0]?.kind, 'corrupt_lines');
  assert.deepEqual(
    timeline(screen.view).map((item) => item.key),
    ['r3', 'r4'],
  );
  await store.loadOlder();
  await store.loadOlder();
  screen = store.screen.get();
  assert.deepEqual(
    timeline(screen.view).map((item) => item.key),
    ['r0', 'r1', 'r2', 'r3', 'r4'],
  );
  assert.equal(screen.view.hasOlder, false);
  await store.loadOlder();
  assert.deepEqual(
    host.requests,
    [
      `/api/history/${claudeId(1)}/messages`,
      `/api/history/${claudeId(1)}/messages?before=3`,
      `/api/history/${claudeId(1)}/messages?before=1`,
    ],
    'nothing is asked once the first row is in',
  );
});

test('a continued session’s history starts before the rows its Outrigger turns came after', async () => {
  const host = fakeHost(10);
  const store = new HistoryTranscriptStore(host.client, claudeId(1), { before: 4 });
  await store.start();
  assert.deepEqual(
    timeline(store.screen.get().view).map((item) => item.key),
    ['r2', 'r3'],
  );
  assert.equal(host.requests[0], `/api/history/${claudeId(1)}/messages?before=4`);
});

test('a failed load is said, and a stopped store takes no late answer', async () => {
  const failing = new HostClient({
    fetch: (async () =>
      Response.json({ error: { code: 'not_found', message: 'no such transcript' } }, { status: 404 })) as typeof fetch,
  });
  const store = new HistoryTranscriptStore(failing, claudeId(2));
  await store.start();
  assert.equal(store.screen.get().loadError, 'no such transcript');
  const late = new HistoryTranscriptStore(fakeHost(3).client, claudeId(1));
  const started = late.start();
  late.stop();
  await started;
  assert.equal(late.screen.get().loaded, false);
});
