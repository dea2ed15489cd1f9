import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { HostClient } from '@outrigger/host-api';
import { readEventsUntil } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/** One raw HTTP exchange, every header as given (fetch would not let a test set Host). */
function rawGet(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers, setHost: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (text: string) => {
          body += text;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

let testHost: TestHost;
before(async () => {
  testHost = await startTestHost({ heartbeatMs: 100 });
});
after(async () => {
  await testHost?.close();
});

test('the API refuses a request without the token, with a wrong one, or with the token in its query string', async () => {
  const { host } = testHost;
  const own = `127.0.0.1:${host.port}`;
  assert.equal((await rawGet(host.baseUrl, '/api/sessions', { host: own })).status, 401);
  assert.equal(
    (await rawGet(host.baseUrl, '/api/sessions', { host: own, authorization: `Bearer ${host.token.slice(1)}` })).status,
    401,
  );
  const inQuery = await rawGet(host.baseUrl, `/api/sessions?token=${host.token}`, { host: own });
  assert.equal(inQuery.status, 401);
  assert.equal(JSON.parse(inQuery.body).error.code, 'unauthorized');
  const events = await rawGet(host.baseUrl, `/api/events?token=${host.token}`, { host: own });
  assert.equal(events.status, 401, 'an EventSource URL with the token is refused too');
  const ok = await rawGet(host.baseUrl, '/api/sessions', { host: own, authorization: `Bearer ${host.token}` });
  assert.equal(ok.status, 200);
  assert.deepEqual(JSON.parse(ok.body), { sessions: [], lastSeq: 0 });
});

test('a foreign Origin gets 403 and a rebinding Host 421, even with the right token', async () => {
  const { host } = testHost;
  const authorization = `Bearer ${host.token}`;
  const own = `127.0.0.1:${host.port}`;
  for (const path of ['/api/info', '/', `/?token=${host.token}`]) {
    const foreign = await rawGet(host.baseUrl, path, { host: own, authorization, origin: 'http://evil.example' });
    assert.equal(foreign.status, 403, path);
    const rebinding = await rawGet(host.baseUrl, path, { host: `evil.example:${host.port}`, authorization });
    assert.equal(rebinding.status, 421, path);
    assert.equal(JSON.parse(rebinding.body).error.code, 'misdirected_request');
  }
  const sameOrigin = await rawGet(host.baseUrl, '/api/info', {
    host: `localhost:${host.port}`,
    authorization,
    origin: `http://localhost:${host.port}`,
  });
  assert.equal(sameOrigin.status, 200);
});

test('the printed URL sets an HttpOnly SameSite=Strict cookie that then authenticates the API', async () => {
  const { host } = testHost;
  const own = `127.0.0.1:${host.port}`;
  const page = await rawGet(host.baseUrl, new URL(host.url).pathname + new URL(host.url).search, { host: own });
  assert.equal(page.status, 303);
  assert.equal(page.headers.location, '/');
  const cookie = String(page.headers['set-cookie'] ?? '');
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  assert.match(cookie, /Path=\//);
  const pair = cookie.split(';')[0] ?? '';
  const withCookie = await rawGet(host.baseUrl, '/api/info', { host: own, cookie: pair });
  assert.equal(withCookie.status, 200);
  assert.equal(JSON.parse(withCookie.body).version, testHost.host.info.version);
  const home = await rawGet(host.baseUrl, '/', { host: own, cookie: pair });
  assert.equal(home.status, 200);
  assert.match(String(home.headers['content-type']), /^text\/html/);
});

test('the token file is 0600 and the token survives a restart', async () => {
  const before = testHost.host.token;
  assert.equal((await stat(testHost.host.tokenFile)).mode & 0o777, 0o600);
  await testHost.restart();
  assert.equal(testHost.host.token, before);
  const info = await new HostClient({ baseUrl: testHost.host.baseUrl, token: before }).call('info');
  assert.equal(info.modelBackend, 'anthropic');
  assert.equal(info.defaultCwd.startsWith(testHost.dataDir), true);
});

test('a quiet stream carries heartbeats: real events without an id', async () => {
  let beats = 0;
  const frames = await readEventsUntil(
    testHost.client,
    undefined,
    (frame) => frame.event === 'heartbeat' && ++beats === 2,
    {
      heartbeats: true,
      timeoutMs: 10_000,
    },
  );
  for (const frame of frames.filter((frame) => frame.event === 'heartbeat')) {
    assert.equal(frame.id, undefined);
    assert.equal(typeof (frame.data as { time?: unknown }).time, 'number');
  }
});
