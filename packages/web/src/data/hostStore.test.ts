import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostClient } from '@outrigger/host-api';
import { HostStore } from './hostStore.ts';
import { settle } from './testing/fakeTimers.ts';
import { interaction, summary } from './testing/fixtures.ts';

function fakeHost(lists: { sessionsSeq?: number; interactionsSeq?: number }) {
  const streamAfter: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = new URL(String(url), 'http://host').pathname;
    if (path === '/api/info')
      return Response.json({
        version: '1',
        modelBackend: 'demo',
        modelBackendReason: '',
        defaultCwd: '/',
        allowRoots: [],
        limits: {},
      });
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
      const resolved = `id: 8\nevent: permission_resolved\ndata: ${JSON.stringify({ seq: 8, session_id: 'a', turnId: 't1', requestId: 'r1', status: 'answered', resolution: 'answered' })}\n\n`;
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
  const store = new HostStore(host.client);
  const running = store.start();
  await settle();
  assert.deepEqual(host.streamAfter, ['7']);
  assert.deepEqual(store.screen.get().view.inbox, {}, 'the interaction resolved at seq 8 left the inbox');
  assert.equal(store.screen.get().connection, 'live');
  store.stop();
  await running;
});

test('a host that does not say its lists’ seq is replayed from the start', async () => {
  const host = fakeHost({});
  const store = new HostStore(host.client);
  const running = store.start();
  await settle();
  assert.deepEqual(host.streamAfter, ['0']);
  assert.equal(store.screen.get().view.sessions.a?.id, 'a');
  store.stop();
  await running;
});
