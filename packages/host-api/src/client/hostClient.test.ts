import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostApiError, HostClient } from './hostClient.ts';

test('calls carry the token, fill path parameters and parse the JSON answer', async () => {
  const seen: { url: string; init: RequestInit }[] = [];
  const client = new HostClient({
    baseUrl: 'http://127.0.0.1:9/',
    token: 'tok',
    fetch: async (url, init) => {
      seen.push({ url: String(url), init: init ?? {} });
      return new Response(JSON.stringify({ turnId: 't1', queued: false, steered: false, replayed: false }), {
        status: 202,
      });
    },
  });
  const answer = await client.call('postTurn', { params: { id: 's 1' }, body: { prompt: 'hi' } });
  assert.equal(answer.turnId, 't1');
  assert.equal(seen[0]?.url, 'http://127.0.0.1:9/api/sessions/s%201/turns');
  assert.equal((seen[0]?.init.headers as Record<string, string> | undefined)?.authorization, 'Bearer tok');
  assert.equal(seen[0]?.init.body, '{"prompt":"hi"}');
});

test('an error answer becomes a HostApiError with its code', async () => {
  const client = new HostClient({
    fetch: async () =>
      new Response(JSON.stringify({ error: { code: 'conflict', message: 'a different answer was given' } }), {
        status: 409,
      }),
  });
  await assert.rejects(
    client.call('answerInteraction', { params: { id: 's', requestId: 'r' }, body: { action: 'allow' } }),
    (error: unknown) => error instanceof HostApiError && error.status === 409 && error.code === 'conflict',
  );
  const plain = new HostClient({ fetch: async () => new Response('oops', { status: 502 }) });
  await assert.rejects(
    plain.call('info'),
    (error: unknown) => error instanceof HostApiError && error.code === 'unexpected_response',
  );
});

test('a route missing a path parameter is a programming error, not a request', () => {
  assert.throws(() => new HostClient().url('getSession'), /needs the path parameter id/);
});
