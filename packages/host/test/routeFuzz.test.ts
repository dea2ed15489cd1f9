import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { TEST_DRIVER_ENV } from '@outrigger/claude-sdk-sidecar/testing';
import {
  commonRouteErrors,
  type HostErrorCode,
  type HostRouteName,
  hostErrorBodySchema,
  hostErrorStatus,
  hostLimits,
  hostRoutes,
} from '@outrigger/host-api';
import {
  assertFuzz,
  brokenJsonText,
  fieldsObjectText,
  hostileJsonText,
  keyText,
  nestedText,
  snapshotBuiltinPrototypes,
  stringText,
} from '@outrigger/protocol/testing';
import fc from 'fast-check';
import { Hono } from 'hono';
import type { z } from 'zod';
import { createHostApp } from '../src/http/hostApp.ts';
import { createMemoryLogger } from '../src/logging/hostLogger.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * Every route body and query string of the host fuzzed in process (issue 11): the Hono app's `request()`
 * against the real core (SQLite store, sessions, projection) whose sidecar runs in test-driver mode, so no
 * case starts Claude Code. Whatever a request holds — hostile JSON, prototype-pollution keys, deep nesting,
 * invalid UTF-8, oversized bodies, wrong content types, path traversal in `cwd` and in ids — the answer is a
 * success or a 4xx `{error: {code, message}}` whose code goes with its status, never a 5xx, and the app keeps
 * serving (a probe after every case). Every error code answered is one the route the request reached lists
 * in its `errors` (or a common one), so the route table's lists cannot claim less than the host answers.
 * Fixed seed plus a random one (see @outrigger/protocol/testing).
 */

const TOKEN = 'route-fuzz-token-0123456789abcdefghijklmnopqrstuvwxyz';
const PORT = 7499;
let testHost: TestHost;
let app: ReturnType<typeof createHostApp>;
let logger: ReturnType<typeof createMemoryLogger>;
const pools = {
  sessionId: [] as string[],
  turnId: [] as string[],
  taskId: [] as string[],
  requestId: [] as string[],
  toolUseId: ['toolu_unknown'] as string[],
  attachmentId: ['att-unknown'] as string[],
};
let insideRoot = '';

const call = (path: string, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  if (!headers.has('host')) headers.set('host', `127.0.0.1:${PORT}`);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${TOKEN}`);
  return app.request(`http://127.0.0.1:${PORT}${path}`, { ...init, headers });
};
const json = async <T>(path: string, method: string, body: unknown): Promise<T> => {
  const response = await call(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`);
  return (await response.json()) as T;
};

/** A session for the pool, with a turn waiting for an approval and a task. */
async function addPoolSession(title: string): Promise<string> {
  const { id } = await json<{ id: string }>('/api/sessions', 'POST', { cwd: testHost.cwd, title });
  pools.sessionId.push(id);
  const { turnId } = await json<{ turnId: string }>(`/api/sessions/${id}/turns`, 'POST', { prompt: 'approval please' });
  pools.turnId.push(turnId);
  const { task } = await json<{ task: { id: string } }>('/api/tasks', 'POST', { session_id: id, title: 'a task' });
  pools.taskId.push(task.id);
  return id;
}

/** A pool session the fuzz closed or deleted is replaced, so later cases still meet open sessions. */
async function replaceClosedSessions(): Promise<void> {
  for (const id of [...pools.sessionId]) {
    const snapshot = (await (await call(`/api/sessions/${id}`)).json()) as { session?: { closed?: boolean } };
    if (snapshot.session !== undefined && snapshot.session.closed !== true) continue;
    pools.sessionId.splice(pools.sessionId.indexOf(id), 1);
    await addPoolSession('replacement');
  }
}

before(async () => {
  testHost = await startTestHost({ env: { [TEST_DRIVER_ENV]: '1' } });
  insideRoot = join(testHost.cwd, 'inside');
  await mkdir(insideRoot, { recursive: true });
  // A second core over the same store would race the first; the app is built over the running host's own core.
  logger = createMemoryLogger();
  app = createHostApp({
    service: testHost.host.service,
    logger,
    security: { token: () => TOKEN, port: PORT, boundHost: '127.0.0.1' },
    validateResponses: true,
  });
  for (const title of ['one', 'two']) {
    const { id } = await json<{ id: string }>('/api/sessions', 'POST', { cwd: testHost.cwd, title });
    pools.sessionId.push(id);
    const { turnId } = await json<{ turnId: string }>(`/api/sessions/${id}/turns`, 'POST', {
      prompt: 'approval please',
    });
    pools.turnId.push(turnId);
    const { task } = await json<{ task: { id: string } }>('/api/tasks', 'POST', { session_id: id, title: 'a task' });
    pools.taskId.push(task.id);
  }
  // The test driver asked for an approval in each session: their request ids answer to the fuzz too.
  const pending = await (await call('/api/interactions?status=pending')).json();
  for (const item of (pending as { interactions: { requestId: string }[] }).interactions)
    pools.requestId.push(item.requestId);
});
after(async () => {
  await testHost?.close();
});

/** Values an id in a path takes: one that exists, or traversal, encodings, pollution keys, unicode, length. */
const idValue = (pool: readonly string[]) =>
  fc.oneof(
    // Looked up when the case is made: the pool changes as closed sessions are replaced.
    { weight: 10, arbitrary: fc.nat().map((index) => pool[index % pool.length] as string) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '..',
        '../..',
        '../../etc/passwd',
        '..%2f..%2fetc%2fpasswd',
        '%2e%2e%2f%2e%2e%2f',
        '..\\..\\windows',
        '/etc/passwd',
        '__proto__',
        'constructor',
        'prototype',
        '%00',
        '\u0000',
        '\u202e\u2066x',
        'x'.repeat(5_000),
        ' ',
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  );

const pathParams: Record<string, () => fc.Arbitrary<string>> = {
  id: () => idValue(pools.sessionId),
  turnId: () => idValue(pools.turnId),
  taskId: () => idValue(pools.taskId),
  requestId: () => idValue(pools.requestId),
  toolUseId: () => idValue(pools.toolUseId),
  attachmentId: () => idValue(pools.attachmentId),
};

/** A path parameter, encoded (mostly) or raw (so `..` and `/` reach the router as they are). */
const encodedParam = (value: fc.Arbitrary<string>) =>
  fc.tuple(value, fc.nat({ max: 9 })).map(([raw, pick]) => {
    if (pick === 0) return raw;
    try {
      return encodeURIComponent(raw);
    } catch {
      return encodeURIComponent(raw.replace(/[\ud800-\udfff]/g, '?'));
    }
  });

/** A JSON string of a pool member, looked up when the case is made. */
const fromPool = (pool: readonly string[]) => fc.nat().map((index) => JSON.stringify(pool[index % pool.length]));

/** Plausible values for body and query fields (mostly valid, so cases reach the service, not only the schema). */
const goodValue = (field: string): fc.Arbitrary<string> => {
  const text = (values: readonly string[]) => fc.constantFrom(...values.map((value) => JSON.stringify(value)));
  const mostly = (valid: fc.Arbitrary<string>, invalid: fc.Arbitrary<string>) =>
    fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: invalid });
  switch (field) {
    case 'cwd':
      return mostly(
        text([testHost.cwd, insideRoot]),
        text([
          `${insideRoot}/..`,
          `${testHost.cwd}/../..`,
          '/etc',
          '/',
          'relative/dir',
          '../../',
          `${testHost.cwd}/no-such-dir`,
          `${testHost.cwd}\u0000/x`,
        ]),
      );
    case 'prompt':
      return mostly(text(['hello', 'approval please', 'ask-user now']), fc.oneof(text(['  ', '']), stringText));
    case 'title':
    case 'description':
      return mostly(text(['a title', 'ünïcödé ✓']), stringText);
    case 'clientMessageId':
      return mostly(text(['c-1', 'c-2', 'c-3']), stringText);
    case 'session_id':
      return mostly(fromPool(pools.sessionId), stringText);
    case 'turnId':
      return mostly(fromPool(pools.turnId), stringText);
    case 'action':
      return mostly(text(['allow', 'deny', 'reject']), text(['', 'allow_always', 'x'.repeat(65)]));
    case 'optionId':
      return mostly(text(['allow', 'deny', 'reject', '']), stringText);
    case 'mode':
      return mostly(text(['queue', 'steer']), text(['now', '']));
    case 'status':
      return mostly(text(['pending', 'in_progress', 'completed', 'answered']), text(['all', 'gone']));
    case 'permissionMode':
      return mostly(text(['default', 'plan', 'acceptEdits']), text(['bypassPermissions', 'yolo']));
    case 'model':
      return mostly(text(['default', 'claude-sonnet-test']), stringText);
    case 'effort':
      return mostly(text(['low', 'high', 'max']), text(['ultra']));
    case 'prefix':
      return mostly(
        text([`${testHost.cwd}/`, `${insideRoot.slice(0, -2)}`, '~/', '/', 'src/', 'inside']),
        text([
          `${insideRoot}/../../`,
          '/etc/',
          'relative/',
          `${testHost.cwd}/\u0000`,
          '..',
          '~other/',
          '../../etc/passwd',
          '%2e%2e%2f',
        ]),
      );
    case 'q':
      return mostly(text(['approval', 'one', '%', '_']), stringText);
    case 'archived':
      return mostly(
        fc.constantFrom('true', 'false', '"exclude"', '"include"', '"only"'),
        fc.constantFrom('"all"', '1'),
      );
    case 'planMode':
    case 'includeClosed':
      return mostly(fc.constantFrom('true', 'false'), fc.constantFrom('1', '"yes"'));
    case 'interruptTimeoutMs':
    case 'drainTimeoutMs':
    case 'sort_order':
    case 'limit':
    case 'before':
    case 'after':
      return mostly(
        fc.constantFrom('1', '500', '2000'),
        fc.constantFrom('0', '-1', '1e309', '9007199254740993', '600001', '1.5'),
      );
    case 'content':
      return mostly(
        fc.constantFrom(
          '[{"type":"text","text":"extra"}]',
          '[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]',
        ),
        fc.constantFrom(
          '[{"type":"image","source":{"type":"base64","media_type":"image/svg+xml","data":"PHN2Zz4="}}]',
          '[{"type":"image","source":{"type":"url","url":"file:///etc/passwd"}}]',
        ),
      );
    case 'payload':
      return mostly(
        fc.constantFrom('{}', '{"answers":{"Pick one":"A"}}', '{"message":"no","__proto__":{"behavior":"allow"}}'),
        fc.oneof(hostileJsonText, fc.constant(nestedText(5_000, 'object'))),
      );
    default:
      return stringText;
  }
};

/** Only the schema's fields, each present or not, each (mostly) valid: bodies that reach the service. */
const cleanObjectText = (names: readonly string[]) =>
  fc
    .tuple(
      ...names.map((name) =>
        fc.option(
          goodValue(name).map((value) => `${JSON.stringify(name)}:${value}`),
          { freq: 3 },
        ),
      ),
    )
    .map((entries) => `{${entries.filter((entry): entry is string => entry !== null).join(',')}}`);

/** The fields a route's body or query schema reads (zod objects, possibly refined). */
function fieldNames(schema: z.ZodType | undefined): string[] {
  const inner = schema as unknown as { shape?: Record<string, unknown>; _zod?: { def?: { in?: { shape?: object } } } };
  return Object.keys(inner?.shape ?? inner?._zod?.def?.in?.shape ?? {});
}

/** A body: fitting fields, hostile JSON, broken or deep JSON, bytes that are not UTF-8, or too many bytes. */
const bodyFor = (name: HostRouteName): fc.Arbitrary<{ bytes: Uint8Array; contentType: string | undefined }> => {
  const route = hostRoutes[name] as { body?: z.ZodType };
  const names = fieldNames(route.body);
  const limit = name === 'postTurn' ? hostLimits.maxTurnBodyBytes : hostLimits.maxBodyBytes;
  const utf8 = (text: string) => new TextEncoder().encode(text);
  const jsonBody = fc.oneof(
    { weight: 8, arbitrary: names.length > 0 ? cleanObjectText(names) : fc.constant('{}') },
    { weight: 4, arbitrary: names.length > 0 ? fieldsObjectText(names, goodValue) : hostileJsonText },
    { weight: 2, arbitrary: hostileJsonText },
    { weight: 1, arbitrary: brokenJsonText },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 100, max: 20_000 }), fc.constantFrom<'array' | 'object'>('array', 'object'))
        .map(([depth, kind]) => `{"prompt":"deep","payload":${nestedText(depth, kind)}}`),
    },
  );
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc
        .tuple(jsonBody, fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'))
        .map(([text, contentType]) => ({ bytes: utf8(text), contentType })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          jsonBody,
          fc.constantFrom(undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data'),
        )
        .map(([text, contentType]) => ({ bytes: utf8(text), contentType })),
    },
    {
      weight: 1,
      // A JSON body whose string holds bytes that are not UTF-8.
      arbitrary: fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]).map((bad) => ({
        bytes: new Uint8Array([...utf8('{"prompt":"'), ...bad, ...utf8('","cwd":"'), ...bad, ...utf8('"}')]),
        contentType: 'application/json',
      })),
    },
    {
      weight: 1,
      // One byte over the route's limit (the turn limit is 48 MiB: only its smaller neighbour is tried often).
      arbitrary: fc.constant(null).map(() => ({
        bytes: utf8(`{"title":"${'x'.repeat(Math.min(limit, hostLimits.maxBodyBytes) + 1)}"}`),
        contentType: 'application/json',
      })),
    },
  );
};

/** A query string: the route's fields and stray keys, repeated keys, bad percent-encodings. */
const queryFor = (name: HostRouteName): fc.Arbitrary<string> => {
  const names = fieldNames((hostRoutes[name] as { query?: z.ZodType }).query);
  const key = fc.oneof(
    { weight: 3, arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.constant('x') },
    { weight: 1, arbitrary: keyText.map((text) => JSON.parse(text) as string) },
    { weight: 1, arbitrary: fc.constantFrom('token', '__proto__', 'constructor[prototype]', 'a%ZZ', '%') },
  );
  const value = fc.oneof(
    key.chain((field) => goodValue(field).map((text) => (text.startsWith('"') ? (JSON.parse(text) as string) : text))),
    fc.constantFrom('%ZZ', '%', '%E0%A4%A', 'x'.repeat(3_000)),
  );
  return fc.array(fc.tuple(key, value), { maxLength: 4 }).map((pairs) =>
    pairs
      .map(([k, v]) => {
        const encode = (text: string) => {
          try {
            return /%/.test(text) ? text : encodeURIComponent(text);
          } catch {
            return 'x';
          }
        };
        return `${encode(k)}=${encode(v)}`;
      })
      .join('&'),
  );
};

const fuzzableRoutes = (Object.keys(hostRoutes) as HostRouteName[]).filter(
  (name) => hostRoutes[name].produces !== 'sse',
);

interface FuzzRequest {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly body: { bytes: Uint8Array; contentType: string | undefined } | undefined;
}

/** The routes that change state come more often: they reach the sessions, the sidecar and the store. */
const routeWeights: Partial<Record<HostRouteName, number>> = {
  postTurn: 6,
  answerInteraction: 4,
  cancelTurn: 3,
  editQueuedTurn: 2,
  runQueuedTurn: 2,
  resumeQueue: 2,
  createSession: 2,
  createTask: 2,
  updateTask: 2,
  updateSettings: 2,
  forkSession: 2,
};

const routeRequest: fc.Arbitrary<FuzzRequest> = fc
  .oneof(...fuzzableRoutes.map((name) => ({ weight: routeWeights[name] ?? 1, arbitrary: fc.constant(name) })))
  .chain((name) => {
    const route = hostRoutes[name] as { method: string; path: string; body?: z.ZodType };
    const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
    return fc
      .tuple(
        fc.tuple(...params.map((param) => encodedParam((pathParams[param] ?? (() => stringText))()))),
        // A route without a query schema refuses any query: a query on it is rarer, so most cases reach further.
        fc.oneof(
          {
            weight: (hostRoutes[name] as { query?: unknown }).query === undefined ? 6 : 2,
            arbitrary: fc.constant(null),
          },
          { weight: 1, arbitrary: queryFor(name) },
        ),
        route.body !== undefined || route.method !== 'GET' ? fc.option(bodyFor(name), { freq: 8 }) : fc.constant(null),
        fc.oneof(
          { weight: 9, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'OPTIONS') },
        ),
      )
      .map(([values, query, body, method]) => {
        let path = route.path;
        params.forEach((param, index) => {
          path = path.replace(`:${param}`, values[index] ?? '');
        });
        return {
          label: name,
          method,
          path: query === null || query === '' ? path : `${path}?${query}`,
          body: method === 'GET' || body === null ? undefined : body,
        };
      });
  });

/** Paths no route has: traversal out of /api, doubled slashes, encoded dots. */
const strayRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.constantFrom(
      '/api/../../etc/passwd',
      '/api/%2e%2e/%2e%2e/etc/passwd',
      '//api//sessions',
      '/api/sessions/',
      '/api/sessions/x/y/z/w',
      '/api/nope',
      '/api',
      '/../../../../etc/shadow',
      '/%00',
    ),
    fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
  )
  .map(([path, method]) => ({ label: 'stray', method, path, body: undefined }));

const fuzzRequest = fc.oneof({ weight: 12, arbitrary: routeRequest }, { weight: 1, arbitrary: strayRequest });

/**
 * The route a request reaches, by Hono's own router over the same table in the same order as the app's: a
 * fuzzed method or a raw `/` in an id can land on another route than the one the case was made for.
 */
const router = new Hono();
for (const [name, route] of Object.entries(hostRoutes)) router.on(route.method, route.path, (c) => c.text(name));
router.all('*', (c) => c.text(''));
async function routeReached(request: FuzzRequest): Promise<HostRouteName | undefined> {
  const response = await router.request(`http://127.0.0.1:${PORT}${request.path}`, { method: request.method });
  const name = await response.text();
  return name === '' ? undefined : (name as HostRouteName);
}

/** What a path no route has answers (`apiFallback.ts`, the app's 404). */
const noRouteErrors: readonly HostErrorCode[] = ['not_found', 'method_not_allowed'];

async function send(request: FuzzRequest): Promise<Response> {
  const headers = new Headers();
  if (request.body?.contentType !== undefined) headers.set('content-type', request.body.contentType);
  return call(request.path, {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body.bytes }),
  });
}

test('every route answers hostile requests with a success or a clear 4xx, never a 5xx, and keeps serving', async () => {
  const untouched = snapshotBuiltinPrototypes();
  const statuses = new Map<number, number>();
  const observed = new Map<string, Set<HostErrorCode>>();
  let cases = 0;
  const runs = await assertFuzz(
    'host routes',
    fc.asyncProperty(fuzzRequest, async (request) => {
      cases += 1;
      const response = await send(request);
      const status = response.status;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const text = await response.text();
      assert.ok(status < 500, `${request.method} ${request.label} answered ${status}: ${text.slice(0, 300)}`);
      if (status >= 400) {
        const body = hostErrorBodySchema.parse(JSON.parse(text));
        assert.equal(hostErrorStatus[body.error.code], status, `the code ${body.error.code} goes with ${status}`);
        assert.ok(body.error.message.length > 0);
        const reached = await routeReached(request);
        const listed: readonly HostErrorCode[] = [
          ...commonRouteErrors,
          ...(reached === undefined ? noRouteErrors : hostRoutes[reached].errors),
        ];
        assert.ok(
          listed.includes(body.error.code),
          `${request.method} ${request.label} reached ${reached ?? 'no route'} and answered ${body.error.code}, which its errors do not list`,
        );
        const key = reached ?? 'no route';
        observed.set(key, (observed.get(key) ?? new Set()).add(body.error.code));
      }
      untouched();
      if (request.method === 'DELETE' && status === 204 && request.label === 'closeSession')
        await replaceClosedSessions();
      const probe = await call('/api/info');
      assert.equal(probe.status, 200, 'the app still serves');
      await probe.arrayBuffer();
    }),
    { numRuns: 2_000 },
  );
  const internal = logger.records().filter((record) => record.event === 'http.internal_error');
  assert.deepEqual(internal, [], 'no request was an internal error');
  console.log(
    `host route fuzz: ${cases} cases (${runs.map((run) => `${run.label} seed ${run.seed} × ${run.numRuns}`).join(', ')}); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
  );
  console.log(
    `host route fuzz: error codes by route ${JSON.stringify(Object.fromEntries([...observed].map(([route, codes]) => [route, [...codes].sort()])))}`,
  );
});

test('path traversal: a cwd outside --allow-root or resolving out of it is refused; ids with ../ name nothing', async () => {
  // The fuzz above may have created sessions anywhere the host allows; this host allows only its own cwd tree.
  const restricted = await startTestHost({ env: { [TEST_DRIVER_ENV]: '1' }, allowRoots: [insideRoot] });
  try {
    const client = restricted.client;
    for (const cwd of ['/etc', testHost.cwd, `${insideRoot}/..`, `${insideRoot}/../..`, `${insideRoot}/../../etc`]) {
      await assert.rejects(
        client.call('createSession', { body: { cwd } }),
        (error: unknown) =>
          typeof error === 'object' &&
          error !== null &&
          'status' in error &&
          (error.status === 403 || error.status === 400),
        cwd,
      );
    }
    const { id } = await client.call('createSession', { body: { cwd: insideRoot } });
    assert.equal((await client.call('getSession', { params: { id } })).session.cwd, insideRoot);
    for (const taskId of ['..', '../..', '../../etc/passwd', '%2e%2e']) {
      await assert.rejects(
        client.call('deleteTask', { params: { taskId } }),
        (error: unknown) => typeof error === 'object' && error !== null && 'status' in error && error.status === 404,
        taskId,
      );
    }
  } finally {
    await restricted.close();
  }
});
