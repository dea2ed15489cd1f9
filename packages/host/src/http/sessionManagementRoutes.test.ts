import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostErrorBodySchema } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';
import { appForTest } from './testing/appTestSupport.ts';

/*
 * The session-management routes (issue 17) at the HTTP layer: each reaches its service method with what it
 * was given (defaults included), bad bodies and queries are refused before the service, and the service's
 * refusals come out with their codes.
 */

test('archive, delete, search and the directory routes call their service methods with the request', async () => {
  const { call, service } = appForTest();
  service.addSession('s1');
  const cases: [string, RequestInit & { json?: unknown }, string, unknown[]][] = [
    ['/api/sessions?archived=only', 'GET', 'listSessions', [{ includeClosed: false, archived: 'only' }]],
    ['/api/sessions/s1/archive', { method: 'POST', json: { archived: true } }, 'archiveSession', ['s1', true]],
    ['/api/sessions/s1/archive', { method: 'POST', json: { archived: false } }, 'archiveSession', ['s1', false]],
    ['/api/sessions/s1/delete', { method: 'POST' }, 'deleteSession', ['s1']],
    ['/api/sessions/s1/delete', { method: 'POST', json: {} }, 'deleteSession', ['s1']],
    [
      '/api/search/sessions?q=%20web%25socket%20',
      'GET',
      'searchSessions',
      ['web%socket', { includeClosed: true, archived: 'include' }],
    ],
    [
      '/api/search/sessions?q=x&includeClosed=0&archived=exclude',
      'GET',
      'searchSessions',
      ['x', { includeClosed: false, archived: 'exclude' }],
    ],
    ['/api/directories/recent', 'GET', 'recentDirectories', []],
    ['/api/directories?prefix=~%2Fcode%2F', 'GET', 'completeDirectory', ['~/code/']],
  ].map(([path, init, method, args]) => [
    path as string,
    (init === 'GET' ? {} : init) as RequestInit & { json?: unknown },
    method as string,
    args as unknown[],
  ]);
  for (const [path, init, method, args] of cases) {
    service.calls.length = 0;
    const response = await call(path, init);
    assert.equal(response.status, 200, `${init.method ?? 'GET'} ${path}: ${await response.clone().text()}`);
    assert.deepEqual(service.calls, [{ method, args }], `${init.method ?? 'GET'} ${path}`);
  }
});

test('bad bodies and queries are refused before the service', async () => {
  const { call, service } = appForTest();
  service.addSession('s1');
  const cases: [string, RequestInit & { json?: unknown }][] = [
    ['/api/sessions/s1/archive', { method: 'POST', json: {} }],
    ['/api/sessions/s1/archive', { method: 'POST', json: { archived: 'yes' } }],
    ['/api/sessions/s1/delete', { method: 'POST', json: { force: true } }],
    ['/api/sessions?archived=all', {}],
    ['/api/search/sessions', {}],
    ['/api/search/sessions?q=%20%20', {}],
    [`/api/search/sessions?q=${'x'.repeat(201)}`, {}],
    ['/api/directories', {}],
    ['/api/directories?prefix=', {}],
    ['/api/directories/recent?x=1', {}],
  ];
  for (const [path, init] of cases) {
    service.calls.length = 0;
    const response = await call(path, init);
    assert.equal(response.status, 400, `${path}: ${await response.clone().text()}`);
    assert.equal(hostErrorBodySchema.parse(await response.json()).error.code, 'validation_failed', path);
    assert.deepEqual(service.calls, [], `${path} never reached the service`);
  }
});

test('the service’s refusals keep their codes: conflict for a running session, forbidden outside the roots', async () => {
  const { call, service } = appForTest();
  service.addSession('s1');
  service.overrides.deleteSession = () => {
    throw new HostError('conflict', 'the session is running; stop it or let it finish before it is deleted');
  };
  service.overrides.completeDirectory = () => {
    throw new HostError('forbidden', '/etc/ is outside the directories this host may use');
  };
  const deleted = await call('/api/sessions/s1/delete', { method: 'POST' });
  assert.equal(deleted.status, 409);
  assert.match(hostErrorBodySchema.parse(await deleted.json()).error.message, /running; stop it/);
  const listed = await call('/api/directories?prefix=%2Fetc%2F');
  assert.equal(listed.status, 403);
  assert.equal(hostErrorBodySchema.parse(await listed.json()).error.code, 'forbidden');
});
