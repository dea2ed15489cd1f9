import assert from 'node:assert/strict';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import { hostErrorBodySchema } from '@outrigger/host-api';
import { createMemoryLogger } from '../logging/hostLogger.ts';
import { CONTENT_SECURITY_POLICY } from './contentSecurityPolicy.ts';
import { createHostApp } from './hostApp.ts';
import { listenHost } from './httpServer.ts';
import { ownHostHeaders, tokenCookieName, tokenMatches } from './security.ts';
import { appForTest, TEST_PORT, TEST_TOKEN } from './testing/appTestSupport.ts';
import { FakeHostService } from './testing/fakeHostService.ts';

async function codeOf(response: Response): Promise<string> {
  return hostErrorBodySchema.parse(await response.json()).error.code;
}

test('the API needs the token: none, a wrong one, or one in the query string are refused with 401', async () => {
  const { call, service } = appForTest();
  const none = await call('/api/info', { headers: { authorization: '' } });
  assert.equal(none.status, 401);
  assert.equal(await codeOf(none), 'unauthorized');
  assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="outrigger"');
  assert.equal((await call('/api/info', { headers: { authorization: `Bearer ${TEST_TOKEN}x` } })).status, 401);
  assert.equal((await call('/api/info', { headers: { authorization: `Basic ${TEST_TOKEN}` } })).status, 401);
  const inQuery = await call(`/api/info?token=${TEST_TOKEN}`, { headers: { authorization: '' } });
  assert.equal(inQuery.status, 401);
  assert.match(hostErrorBodySchema.parse(await inQuery.json()).error.message, /only in the Authorization header/);
  // Even alongside a valid header, a token in an API URL is refused: it would leak into logs and histories.
  assert.equal((await call(`/api/info?token=${TEST_TOKEN}`)).status, 401);
  assert.equal((await call('/api/sessions', { method: 'POST', headers: { authorization: '' } })).status, 401);
  assert.equal(service.calls.length, 0);
  assert.equal((await call('/api/info')).status, 200);
});

test('the cookie of this port authenticates; another port’s cookie does not', async () => {
  const { call } = appForTest();
  const withCookie = (cookie: string) => call('/api/info', { headers: { authorization: '', cookie } });
  assert.equal((await withCookie(`a=b; ${tokenCookieName(TEST_PORT)}=${TEST_TOKEN}`)).status, 200);
  assert.equal((await withCookie(`${tokenCookieName(TEST_PORT + 1)}=${TEST_TOKEN}`)).status, 401);
  assert.equal((await withCookie(`${tokenCookieName(TEST_PORT)}=wrong`)).status, 401);
});

test('a cookie of the same name planted first (another port of 127.0.0.1, Path=/api) does not lock the owner out', async () => {
  const { call } = appForTest();
  const name = tokenCookieName(TEST_PORT);
  const withCookie = (cookie: string) => call('/api/info', { headers: { authorization: '', cookie } });
  // The browser sends the more specific path first: the planted one, then ours.
  assert.equal((await withCookie(`${name}=planted; other=1; ${name}=${TEST_TOKEN}`)).status, 200);
  assert.equal((await withCookie(`${name}=; ${name}=${TEST_TOKEN}`)).status, 200);
  assert.equal((await withCookie(`${name}=planted; ${name}=also-wrong`)).status, 401);
});

test('the token is read on every request: after a rotation the old bearer and cookie are refused at once', async () => {
  let current = TEST_TOKEN;
  const { call } = appForTest({ security: { token: () => current, port: TEST_PORT, boundHost: '127.0.0.1' } });
  const rotated = `${TEST_TOKEN}-rotated`;
  const cookie = `${tokenCookieName(TEST_PORT)}=${TEST_TOKEN}`;
  assert.equal((await call('/api/info')).status, 200);
  assert.equal((await call('/api/info', { headers: { authorization: '', cookie } })).status, 200);
  current = rotated;
  assert.equal((await call('/api/info')).status, 401, 'old bearer');
  assert.equal((await call('/api/info', { headers: { authorization: '', cookie } })).status, 401, 'old cookie');
  assert.equal((await call('/api/info', { headers: { authorization: `Bearer ${rotated}` } })).status, 200);
  const exchanged = await call(`/?token=${rotated}`, { headers: { authorization: '' }, redirect: 'manual' });
  assert.match(exchanged.headers.get('set-cookie') ?? '', new RegExp(`^${tokenCookieName(TEST_PORT)}=${rotated};`));
  assert.equal((await call(`/?token=${TEST_TOKEN}`, { headers: { authorization: '' } })).status, 401, 'old link');
});

test('the page load trades ?token= for an HttpOnly SameSite=Strict cookie and a redirect without it', async () => {
  const { call } = appForTest();
  const response = await call(`/?token=${TEST_TOKEN}&view=inbox`, {
    headers: { authorization: '' },
    redirect: 'manual',
  });
  assert.equal(response.status, 303);
  assert.equal(response.headers.get('location'), '/?view=inbox');
  const cookie = response.headers.get('set-cookie') ?? '';
  assert.match(cookie, new RegExp(`^${tokenCookieName(TEST_PORT)}=${TEST_TOKEN};`));
  for (const attribute of ['HttpOnly', 'SameSite=Strict', 'Path=/']) assert.ok(cookie.includes(attribute), attribute);
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  assert.ok(!cookie.includes('Secure'), 'plain HTTP: a Secure cookie would never come back');

  const wrong = await call('/?token=nope', { headers: { authorization: '' }, redirect: 'manual' });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get('set-cookie'), null);
  // Only the page load: another page with the token is not exchanged.
  const elsewhere = await call(`/sessions/1?token=${TEST_TOKEN}`, {
    headers: { authorization: '' },
    redirect: 'manual',
  });
  assert.equal(elsewhere.headers.get('set-cookie'), null);
});

test('every page path trades ?token= the same way: /index.html redirects to itself, without the token', async () => {
  const { call } = appForTest();
  for (const path of ['/index.html', '/%69ndex.html']) {
    const response = await call(`${path}?view=inbox&token=${TEST_TOKEN}`, {
      headers: { authorization: '' },
      redirect: 'manual',
    });
    assert.equal(response.status, 303, path);
    // The decoded page path: the one the router serves, and never a path that could lead off this host.
    assert.equal(response.headers.get('location'), '/index.html?view=inbox', path);
    assert.match(response.headers.get('set-cookie') ?? '', new RegExp(`^${tokenCookieName(TEST_PORT)}=${TEST_TOKEN};`));
    assert.equal(response.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
  }
  const wrong = await call('/index.html?token=nope', { headers: { authorization: '' }, redirect: 'manual' });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get('set-cookie'), null);
  assert.equal(wrong.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
});

test('over HTTPS the exchanged cookie is Secure', async () => {
  const { call } = appForTest({
    security: { token: () => TEST_TOKEN, port: TEST_PORT, boundHost: '127.0.0.1', secureCookie: true },
  });
  const response = await call(`/?token=${TEST_TOKEN}`, { headers: { authorization: '' }, redirect: 'manual' });
  assert.match(response.headers.get('set-cookie') ?? '', /; Secure(;|$)/);
});

test('over HTTPS the own origin is the https one: a page served over TLS can post, an http origin cannot', async () => {
  const { call } = appForTest({
    security: { token: () => TEST_TOKEN, port: TEST_PORT, boundHost: '127.0.0.1', secureCookie: true },
  });
  const secure = await call('/api/info', { headers: { origin: `https://127.0.0.1:${TEST_PORT}` } });
  assert.equal(secure.status, 200);
  const plain = await call('/api/info', { headers: { origin: `http://127.0.0.1:${TEST_PORT}` } });
  assert.equal(plain.status, 403);
});

test('the Content-Security-Policy is on the page, an API answer, a 401, a 404 and an SSE stream', async () => {
  const { call } = appForTest();
  const responses = {
    page: await call('/', { headers: { authorization: '' } }),
    api: await call('/api/info'),
    unauthorized: await call('/api/info', { headers: { authorization: '' } }),
    notFound: await call('/api/nothing'),
  };
  for (const [what, response] of Object.entries(responses)) {
    assert.equal(response.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY, what);
  }
  assert.equal(responses.unauthorized.status, 401);

  const service = new FakeHostService();
  service.addSession('s1');
  const listening = await listenHost('127.0.0.1', 0, (port) =>
    createHostApp({
      service,
      logger: createMemoryLogger(),
      security: { token: () => TEST_TOKEN, port, boundHost: '127.0.0.1' },
    }),
  );
  const abort = new AbortController();
  try {
    const stream = await fetch(`http://127.0.0.1:${listening.port}/api/sessions/s1/events`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      signal: abort.signal,
    });
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY, 'SSE');
    assert.equal(stream.headers.get('x-frame-options'), 'DENY', 'SSE');
  } finally {
    abort.abort();
    await listening.close(100);
  }
});

test('a foreign Origin is refused with 403 on every route, the host’s own origin is not', async () => {
  const { call } = appForTest();
  for (const origin of [
    'http://evil.example',
    'null',
    `http://127.0.0.1:${TEST_PORT + 1}`,
    `https://127.0.0.1:${TEST_PORT}`,
  ]) {
    for (const [path, method] of [
      ['/api/info', 'GET'],
      ['/api/sessions', 'POST'],
      ['/', 'GET'],
      [`/?token=${TEST_TOKEN}`, 'GET'],
    ] as const) {
      const response = await call(path, { method, headers: { origin }, redirect: 'manual' });
      assert.equal(response.status, 403, `${origin} ${method} ${path}`);
      assert.equal(await codeOf(response), 'forbidden');
    }
  }
  for (const origin of [
    `http://127.0.0.1:${TEST_PORT}`,
    `http://localhost:${TEST_PORT}`,
    `http://[::1]:${TEST_PORT}`,
  ]) {
    assert.equal((await call('/api/info', { headers: { origin } })).status, 200, origin);
  }
});

test('a Host header that is not the host’s own address is refused with 421 (DNS rebinding)', async () => {
  const { call } = appForTest();
  for (const host of ['evil.example', `evil.example:${TEST_PORT}`, `127.0.0.1:${TEST_PORT + 1}`, '127.0.0.1', '']) {
    const response = await call('/api/info', { headers: { host } });
    assert.equal(response.status, 421, host);
    assert.equal(await codeOf(response), 'misdirected_request');
    assert.equal((await call('/', { headers: { host } })).status, 421, `page with ${host}`);
  }
  for (const host of [`localhost:${TEST_PORT}`, `[::1]:${TEST_PORT}`, `LOCALHOST:${TEST_PORT}`]) {
    assert.equal((await call('/api/info', { headers: { host } })).status, 200, host);
  }
});

test('own host names: loopback names and the bound address, with the port', () => {
  const hosts = ownHostHeaders({ port: 80, boundHost: '10.1.2.3' });
  for (const host of ['127.0.0.1:80', 'localhost', '[::1]:80', '10.1.2.3:80', '10.1.2.3'])
    assert.ok(hosts.has(host), host);
  assert.ok(ownHostHeaders({ port: 9, boundHost: '::1' }).has('[::1]:9'));
  assert.ok(!ownHostHeaders({ port: 9, boundHost: '127.0.0.1' }).has('10.1.2.3:9'));
});

test('tokens compare by digest, whatever the candidate', () => {
  assert.equal(tokenMatches(TEST_TOKEN, TEST_TOKEN), true);
  assert.equal(tokenMatches(`${TEST_TOKEN}x`, TEST_TOKEN), false);
  assert.equal(tokenMatches('', TEST_TOKEN), false);
  assert.equal(tokenMatches(undefined, TEST_TOKEN), false);
});

test('every token check, bearer or cookie, is decided by timingSafeEqual over equal-length digests', async () => {
  // node:crypto as its CommonJS object: replacing timingSafeEqual there and syncing the builtin's ESM exports makes
  // the module under test, which imports it by name, call the replacement.
  const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const real = crypto.timingSafeEqual;
  const calls: [number, number][] = [];
  let verdict: boolean | undefined;
  crypto.timingSafeEqual = (a, b) => {
    calls.push([a.byteLength, b.byteLength]);
    return verdict ?? real(a, b);
  };
  syncBuiltinESMExports();
  try {
    const { call } = appForTest();
    const sameLength = `${TEST_TOKEN.slice(0, -1)}${TEST_TOKEN.endsWith('x') ? 'y' : 'x'}`;
    const cases: [Record<string, string>, number][] = [
      [{ authorization: `Bearer ${TEST_TOKEN}` }, 200],
      [{ authorization: `Bearer ${sameLength}` }, 401],
      [{ authorization: `Bearer ${TEST_TOKEN.slice(0, 5)}` }, 401],
      [{ authorization: `Bearer ${TEST_TOKEN}${TEST_TOKEN}` }, 401],
      [{ authorization: '', cookie: `${tokenCookieName(TEST_PORT)}=${sameLength}` }, 401],
      [{ authorization: '', cookie: `${tokenCookieName(TEST_PORT)}=${TEST_TOKEN}` }, 200],
    ];
    for (const [headers, status] of cases) {
      calls.length = 0;
      assert.equal((await call('/api/info', { headers })).status, status, JSON.stringify(headers));
      assert.ok(calls.length >= 1, `${JSON.stringify(headers)}: the token was checked by timingSafeEqual`);
      for (const [a, b] of calls) assert.deepEqual([a, b], [32, 32], 'sha-256 digests on both sides');
    }
    // The verdict is timingSafeEqual's own: nothing else compares the token.
    verdict = false;
    assert.equal((await call('/api/info')).status, 401);
    verdict = true;
    assert.equal((await call('/api/info', { headers: { authorization: `Bearer ${sameLength}` } })).status, 200);
  } finally {
    crypto.timingSafeEqual = real;
    syncBuiltinESMExports();
  }
});
