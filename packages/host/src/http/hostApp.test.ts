import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostErrorBodySchema, hostLimits } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';
import { appForTest } from './testing/appTestSupport.ts';

async function errorOf(response: Response) {
  return hostErrorBodySchema.parse(await response.json()).error;
}

test('each route calls its service method with the path parameters, body and query it was given', async () => {
  const { call, service } = appForTest();
  service.addSession('s1');
  const cases: [string, RequestInit & { json?: unknown }, number, string, unknown[]][] = [
    ['/api/sessions', { method: 'POST', json: { cwd: '/tmp' } }, 201, 'createSession', [{ cwd: '/tmp' }]],
    ['/api/sessions?includeClosed=1', {}, 200, 'listSessions', [{ includeClosed: true, archived: 'exclude' }]],
    ['/api/sessions/s1', {}, 200, 'getSnapshot', ['s1']],
    ['/api/sessions/s1', { method: 'PATCH', json: { title: ' Plan ' } }, 200, 'renameSession', ['s1', 'Plan']],
    [
      '/api/sessions/s1/settings',
      { method: 'PATCH', json: { planMode: true } },
      200,
      'updateSettings',
      ['s1', { planMode: true }],
    ],
    ['/api/sessions/s1', { method: 'DELETE' }, 204, 'closeSession', ['s1']],
    ['/api/sessions/s1/turns/t%2F9/cancel', { method: 'POST' }, 200, 'cancelTurn', ['s1', 't/9', {}]],
    ['/api/sessions/s1/messages?before=10&limit=5', {}, 200, 'listMessages', ['s1', { before: 10, limit: 5 }]],
    ['/api/sessions/s1/tool-results/toolu_1', {}, 200, 'getToolResult', ['s1', 'toolu_1']],
    ['/api/sessions/s1/fork', { method: 'POST', json: { turnId: 't1' } }, 201, 'forkSession', ['s1', { turnId: 't1' }]],
    ['/api/tasks?session_id=s1', {}, 200, 'listTasks', ['s1']],
    [
      '/api/tasks',
      { method: 'POST', json: { session_id: 's1', title: 'Write docs' } },
      201,
      'createTask',
      [{ session_id: 's1', title: 'Write docs' }],
    ],
    ['/api/tasks/task-1', { method: 'DELETE' }, 204, 'deleteTask', ['task-1']],
    ['/api/interactions?status=pending', {}, 200, 'listInteractions', [{ status: 'pending' }]],
    ['/api/sessions/s1/interactions', {}, 200, 'listInteractions', [{ sessionId: 's1' }]],
    ['/api/attachments/a1', {}, 200, 'getAttachment', ['a1']],
  ];
  for (const [path, init, status, method, args] of cases) {
    service.calls.length = 0;
    const response = await call(path, init);
    assert.equal(response.status, status, `${init.method ?? 'GET'} ${path}: ${await response.clone().text()}`);
    assert.deepEqual(service.calls, [{ method, args }], `${init.method ?? 'GET'} ${path}`);
    if (status === 204) assert.equal(await response.text(), '');
  }
  const turn = await call('/api/sessions/s1/turns', { method: 'POST', json: { prompt: 'hi', clientMessageId: 'c1' } });
  assert.equal(turn.status, 202);
  assert.deepEqual(await turn.json(), { turnId: 't1', queued: false, steered: false, replayed: false });
  const info = await call('/api/info');
  assert.equal(((await info.json()) as { modelBackend: string }).modelBackend, 'demo');
  const image = await call('/api/attachments/a1');
  assert.equal(image.headers.get('content-type'), 'image/png');
  assert.deepEqual(new Uint8Array(await image.arrayBuffer()), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
});

test('a body that fails its schema is refused with a detail naming each field', async () => {
  const { call, service } = appForTest();
  const response = await call('/api/sessions', {
    method: 'POST',
    json: { cwd: '', permissionMode: 'yolo', extra: 1, other: 2 },
  });
  assert.equal(response.status, 400);
  const error = await errorOf(response);
  assert.equal(error.code, 'validation_failed');
  const paths = (error.details ?? []).map((detail) => detail.path).sort();
  assert.deepEqual(paths, ['cwd', 'extra', 'other', 'permissionMode']);
  assert.equal(service.calls.length, 0, 'the service never saw the request');

  const turn = await call('/api/sessions/s1/turns', {
    method: 'POST',
    json: {
      prompt: 'x',
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA==' } }],
    },
  });
  const turnError = await errorOf(turn);
  assert.deepEqual(
    turnError.details?.map((detail) => detail.path),
    ['content.0.source.media_type'],
  );
});

test('bodies that are not JSON objects, not JSON, or too large are refused before the service', async () => {
  const { call, service } = appForTest();
  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    call('/api/sessions', { method: 'POST', body, headers });
  assert.equal(
    (await errorOf(await post('{"cwd":"/tmp"}', { 'content-type': 'text/plain' }))).code,
    'unsupported_media_type',
  );
  assert.equal((await post('{"cwd":"/tmp"}', { 'content-type': 'text/plain' })).status, 415);
  const broken = await post('{"cwd": "SECRET-CANARY');
  assert.equal(broken.status, 400);
  const brokenError = await errorOf(broken);
  assert.equal(brokenError.code, 'bad_request');
  assert.ok(!brokenError.message.includes('CANARY'), 'the parser message quoting the body is not echoed');
  assert.equal((await errorOf(await post('[1,2]'))).code, 'bad_request');

  const big = JSON.stringify({ cwd: 'x'.repeat(hostLimits.maxBodyBytes) });
  const declared = await post(big);
  assert.equal(declared.status, 413);
  assert.equal((await errorOf(declared)).code, 'payload_too_large');
  // Without a Content-Length (chunked), the body is cut off as soon as it passes the limit.
  let pulled = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const chunked = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += chunk.byteLength;
      if (pulled > 8 * hostLimits.maxBodyBytes) controller.close();
      else controller.enqueue(chunk);
    },
  });
  const streamed = await call('/api/sessions', {
    method: 'POST',
    body: chunked,
    headers: { 'content-type': 'application/json' },
    duplex: 'half',
  } as RequestInit);
  assert.equal(streamed.status, 413);
  assert.ok(pulled <= hostLimits.maxBodyBytes + 2 * chunk.byteLength, `read ${pulled} bytes of an oversized body`);
  assert.equal(service.calls.length, 0);

  // A turn may carry images: the same size is fine there.
  service.addSession('s1');
  const turn = await call('/api/sessions/s1/turns', {
    method: 'POST',
    json: { prompt: 'y'.repeat(100_000), content: [{ type: 'text', text: 'z'.repeat(150_000) }] },
  });
  assert.equal(turn.status, 202);
});

test('query strings are validated: unknown names, wrong values and repeated names', async () => {
  const { call } = appForTest();
  const unknown = await errorOf(await call('/api/tasks?sessionId=s1'));
  assert.equal(unknown.code, 'validation_failed');
  assert.deepEqual(unknown.details, [{ path: 'sessionId', message: 'unknown field' }]);
  const wrong = await errorOf(await call('/api/interactions?status=open'));
  assert.deepEqual(
    wrong.details?.map((detail) => detail.path),
    ['status'],
  );
  const none = await errorOf(await call('/api/sessions/s1?verbose=1'));
  assert.deepEqual(none.details, [{ path: 'verbose', message: 'unknown field' }], 'a route without a query takes none');
  const twice = await errorOf(await call('/api/interactions?status=pending&status=answered'));
  assert.deepEqual(twice.details, [{ path: 'status', message: 'given more than once' }]);
});

test('unknown routes answer 404 and known paths with another method 405, both as error bodies', async () => {
  const { call } = appForTest();
  const missing = await call('/api/nothing/here');
  assert.equal(missing.status, 404);
  assert.equal((await errorOf(missing)).code, 'not_found');
  const wrong = await call('/api/sessions/s1/turns', { method: 'GET' });
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'POST');
  assert.equal((await errorOf(wrong)).code, 'method_not_allowed');
  const put = await call('/api/sessions/s1', { method: 'PUT' });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, PATCH, DELETE');
});

test('a HostError keeps its code and status; any other error is a bare 500 whose log holds no message', async () => {
  const { call, service, logger } = appForTest();
  service.addSession('s1');
  service.overrides.answerInteraction = () => {
    throw new HostError('conflict', 'a different answer was already given', [{ path: 'optionId', message: 'differs' }]);
  };
  const conflict = await call('/api/sessions/s1/interactions/r1', { method: 'POST', json: { action: 'allow' } });
  assert.equal(conflict.status, 409);
  assert.deepEqual(await errorOf(conflict), {
    code: 'conflict',
    message: 'a different answer was already given',
    details: [{ path: 'optionId', message: 'differs' }],
  });
  assert.deepEqual(service.calls.at(-1)?.args, ['s1', 'r1', { action: 'allow', optionId: '', payload: {} }]);

  service.overrides.getSnapshot = () => {
    throw new TypeError('cannot read CANARY-PROMPT-TEXT of undefined');
  };
  const broken = await call('/api/sessions/s1');
  assert.equal(broken.status, 500);
  const error = await errorOf(broken);
  assert.equal(error.code, 'internal');
  assert.ok(!error.message.includes('CANARY'));
  const records = logger.records().filter((record) => record.event === 'http.internal_error');
  assert.equal(records.length, 1);
  assert.equal(records[0]?.errorName, 'TypeError');
  assert.ok(!JSON.stringify(logger.records()).includes('CANARY'));
});

test('a response that breaks the contract is a 500 when responses are validated', async () => {
  const { call, service, logger } = appForTest();
  service.overrides.listSessions = async () => [{ id: 's1' }];
  const response = await call('/api/sessions');
  assert.equal(response.status, 500);
  assert.equal(logger.records().filter((record) => record.event === 'http.response_invalid').length, 1);
});
