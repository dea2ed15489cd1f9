import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { type HostRouteName, hostRoutes } from '@outrigger/host-api';
import { assertFuzz } from '@outrigger/protocol/testing';
import fc from 'fast-check';
import { createMemoryLogger } from '../logging/hostLogger.ts';
import { createHostApp } from './hostApp.ts';
import { listenHost } from './httpServer.ts';
import { appForTest, TEST_PORT, TEST_TOKEN } from './testing/appTestSupport.ts';
import { FakeHostService } from './testing/fakeHostService.ts';
import { isPublicUiRequest } from './uiPaths.ts';

/*
 * The guard must decide "does this need the token?" on the path the router matches. Hono decodes the path
 * (`decodeURI`) before routing, so `/%61pi/sessions` is `/api/sessions` to the router: a guard that looked at
 * the raw URL let it through without a token. Every route of the API, spelled every way we could think of (and
 * then every way fast-check can), is sent without a token: the answer is never a success or a redirect, and the
 * service behind the app is never reached.
 */

/** What a refused request may answer: bad request, unauthorized, forbidden, not found, wrong method, misdirected. */
const REFUSED = new Set([400, 401, 403, 404, 405, 421]);

/** A concrete path of a route: every `:param` filled in. */
function concretePath(path: string): string {
  return path.replace(/:[A-Za-z]+/g, 's1');
}

const routes = (Object.entries(hostRoutes) as [HostRouteName, (typeof hostRoutes)[HostRouteName]][]).map(
  ([name, route]) => ({ name, method: route.method, path: concretePath(route.path) }),
);

const hex = (char: string) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** `/api/sessions/s1` as it may be written by someone trying to slip past the guard. */
function spellingsOf(path: string): string[] {
  const segments = path.slice(1).split('/');
  const rest = segments.slice(1).join('/');
  const withSegment = (index: number, spelled: string) =>
    `/${segments.map((segment, at) => (at === index ? spelled : segment)).join('/')}`;
  const spellings = [
    `/%61pi/${rest}`,
    `/%41pi/${rest}`,
    `/ap%69/${rest}`,
    `/ap%49/${rest}`,
    `/%61%70%69/${rest}`,
    `/API/${rest}`,
    `/Api/${rest}`,
    path.toUpperCase(),
    `/api%2f${rest}`,
    `/api%2F${rest}`,
    path.replaceAll('/', '%2f').replace('%2f', '/'),
    `//api/${rest}`,
    `/api//${rest}`,
    `${path}/`,
    `${path}//`,
    `/./api/${rest}`,
    `/api/./${rest}`,
    `/x/../api/${rest}`,
    `/%2e/api/${rest}`,
    `/x/%2e%2e/api/${rest}`,
    `/api/${rest}%2f`,
    `/api%00/${rest}`,
    `/api%20/${rest}`,
    `/api/${rest}?x=1`,
    `/api/${rest}#frag`,
  ];
  // One letter of each later segment percent-encoded, lower and upper case hex.
  for (let index = 1; index < segments.length; index += 1) {
    const segment = segments[index] as string;
    spellings.push(withSegment(index, `${hex(segment[0] as string)}${segment.slice(1)}`));
    spellings.push(withSegment(index, `${hex(segment[0] as string).toUpperCase()}${segment.slice(1)}`));
    spellings.push(withSegment(index, segment.toUpperCase()));
  }
  // The whole path percent-encoded, slashes kept: the router still sees the route.
  spellings.push(
    `/${segments
      .map((segment) =>
        segment
          .split('')
          .map((char) => hex(char))
          .join(''),
      )
      .join('/')}`,
  );
  return [...new Set(spellings)];
}

const withoutToken = { host: `127.0.0.1:${TEST_PORT}`, authorization: '' };

async function refusedWithoutToken(path: string, method: string): Promise<{ status: number; calls: number }> {
  const { app, service } = appForTest();
  service.addSession('s1');
  const init: RequestInit = { method, headers: withoutToken };
  if (method !== 'GET' && method !== 'HEAD') init.body = '{}';
  // A string URL, not `call()`: the spelling goes into the Request as written (WHATWG parsing keeps `%61`).
  const response = await app.request(`http://127.0.0.1:${TEST_PORT}${path}`, init);
  await response.arrayBuffer();
  return { status: response.status, calls: service.calls.length };
}

test('the spellings reach the router as the route: with the token, `/%61pi/…` is answered by the API', async () => {
  // Without this the test below could pass for the wrong reason: spellings that never route anywhere.
  const { call, service } = appForTest();
  for (const path of ['/%61pi/sessions', '/ap%69/sessions', '/%61%70%69/sessions', '/api/%73essions']) {
    assert.equal(new URL(`http://h${path}`).pathname, path, 'the URL parser keeps the encoding');
    const response = await call(path);
    assert.equal(response.status, 200, path);
    assert.ok(Array.isArray(((await response.json()) as { sessions?: unknown }).sessions), path);
  }
  assert.equal(service.calls.filter((entry) => entry.method === 'listSessions').length, 4);
});

test('every route of the API, in every spelling of its path and with its method, needs the token', async () => {
  for (const route of routes) {
    for (const path of spellingsOf(route.path)) {
      for (const method of route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]) {
        const { status, calls } = await refusedWithoutToken(path, method);
        assert.ok(REFUSED.has(status), `${route.name}: ${method} ${path} answered ${status} without a token`);
        assert.equal(calls, 0, `${route.name}: ${method} ${path} reached the service without a token`);
      }
    }
  }
});

/** A path spelled at random: each character maybe percent-encoded, letters in any case, slashes doubled, dot segments. */
const spelledPath = (path: string) => {
  const segments = path.slice(1).split('/');
  const spelledChar = (char: string) =>
    fc
      .record({ encode: fc.boolean(), upper: fc.boolean(), hexUpper: fc.boolean() })
      .map(({ encode, upper, hexUpper }) => {
        const cased = upper ? char.toUpperCase() : char;
        if (!encode) return cased;
        const encoded = hex(cased);
        return hexUpper ? encoded.toUpperCase() : encoded;
      });
  const spelledSegment = (segment: string) =>
    fc.tuple(...segment.split('').map(spelledChar)).map((chars) => chars.join(''));
  const leadingSeparator = fc.constantFrom('/', '/', '//', '/./', '/x/../', '/%2e/');
  const separator = fc.oneof(leadingSeparator, fc.constantFrom('%2f', '%2F'));
  return fc
    .tuple(
      fc.tuple(...segments.map(spelledSegment)),
      fc.tuple(leadingSeparator, ...segments.slice(1).map(() => separator)),
      fc.constantFrom('', '/', '//', '?a=1', '#x'),
    )
    .map(
      ([spelled, separators, tail]) =>
        spelled.map((segment, index) => `${separators[index]}${segment}`).join('') + tail,
    );
};

test('fuzz: no random spelling of an API path is answered without the token', async () => {
  const cases = fc
    .constantFrom(...routes)
    .chain((route) => fc.record({ route: fc.constant(route), path: spelledPath(route.path) }));
  await assertFuzz(
    'path spelling without a token',
    fc.asyncProperty(cases, async ({ route, path }) => {
      const { status, calls } = await refusedWithoutToken(path, route.method);
      assert.ok(REFUSED.has(status), `${route.method} ${path} answered ${status}`);
      assert.equal(calls, 0, `${route.method} ${path} reached the service`);
    }),
    { numRuns: 300 },
  );
});

test('fuzz: nothing that starts with /api in any case, holds a %, a backslash, an empty or a dot segment is a public UI path', async () => {
  const caseOf = (text: string, upper: boolean[]) =>
    text
      .split('')
      .map((char, index) => (upper[index] ? char.toUpperCase() : char))
      .join('');
  const apiPath = fc
    .tuple(fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), fc.string({ maxLength: 20 }))
    .map(([upper, rest]) => `/${caseOf('api', upper)}${rest}`);
  const suspectFile = fc
    .tuple(
      fc.constantFrom('/', '/assets/'),
      fc.string({ maxLength: 10 }),
      fc.constantFrom('%2e', '%', '/../', '/./', '\\', '//'),
    )
    .map(([prefix, name, twist]) => `${prefix}${name}${twist}${name}.js`);
  await assertFuzz(
    'public UI paths',
    fc.property(fc.oneof(apiPath, suspectFile), fc.constantFrom('GET', 'HEAD'), (path, method) => {
      assert.equal(isPublicUiRequest(method, path), false, path);
    }),
    { numRuns: 500 },
  );
});

/** A raw request target, written to the socket as it is: no client-side URL parsing on the way. */
function rawRequest(port: number, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number }>((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
      },
    );
    request.on('error', (error) => reject(new Error(`${method} ${path}: ${error.message}`, { cause: error })));
    // A stream opened by mistake would never end: fail on it instead of hanging.
    request.setTimeout(3000, () => request.destroy(new Error(`${method} ${path}: no complete answer in 3 s`)));
    // No body: the guard answers before any is read, and a refused request's unread body resets the socket.
    request.end();
  });
}

test('over a real node server the raw spellings need the token too (the node adapter builds the URL itself)', async () => {
  const service = new FakeHostService();
  service.addSession('s1');
  const listening = await listenHost('127.0.0.1', 0, (port) =>
    createHostApp({
      service,
      logger: createMemoryLogger(),
      security: { token: () => TEST_TOKEN, port, boundHost: '127.0.0.1' },
    }),
  );
  try {
    const authorized = await rawRequest(listening.port, 'GET', '/%61pi/sessions', {
      authorization: `Bearer ${TEST_TOKEN}`,
    });
    assert.equal(authorized.status, 200, 'the raw spelling routes to the API over node too');
    service.calls.length = 0;
    const extra = [
      '/api\\sessions',
      '/%61pi\\sessions',
      '/api/sessions/s1/../../%61pi/sessions',
      // The absolute form of the request target, which the node adapter parses on its own path.
      `http://127.0.0.1:${listening.port}/%61pi/sessions`,
      `http://127.0.0.1:${listening.port}/ap%69/info`,
    ];
    for (const route of routes) {
      // The event streams would hold the connection open if they were ever answered: they must not be.
      for (const path of [...spellingsOf(route.path).filter((path) => !path.includes('#')), ...extra]) {
        const { status } = await rawRequest(listening.port, route.method, path);
        assert.ok(REFUSED.has(status), `${route.name}: ${route.method} ${path} answered ${status} over node`);
      }
    }
    assert.deepEqual(service.calls, [], 'nothing reached the service without a token');
  } finally {
    await listening.close(100);
  }
});
