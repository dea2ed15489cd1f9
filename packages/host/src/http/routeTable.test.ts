import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  commonRouteErrors,
  type HostRouteName,
  hostErrorCodes,
  hostRoutes,
  type PathParamKeys,
  type RouteDefinition,
  type RouteKind,
  type RouteParams,
  type RoutesOfKind,
  type StreamingRouteName,
} from '@outrigger/host-api';
import { binaryHandlers } from './binaryRoutes.ts';
import type { RouteHandler } from './routeContext.ts';
import { type JsonHandlers, jsonHandlers } from './routeHandlers.ts';
import { sseHandlers, turnStreamHandlers } from './streamRoutes.ts';
import { appForTest } from './testing/appTestSupport.ts';

/* The `@ts-expect-error` lines are the type tests: `tsc` fails when one of them compiles. */

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const names = Object.keys(hostRoutes) as HostRouteName[];
const ofKind = (kind: RouteKind) => names.filter((name) => hostRoutes[name].produces === kind).sort();

test('each handler table covers exactly the routes of its kind, and nothing compiles otherwise', () => {
  assert.deepEqual(Object.keys(jsonHandlers).sort(), ofKind('json'));
  assert.deepEqual(Object.keys(sseHandlers).sort(), ofKind('sse'));
  assert.deepEqual(Object.keys(binaryHandlers).sort(), ofKind('binary'));
  const streaming = names.filter((name) => (hostRoutes[name] as RouteDefinition).streams === true);
  assert.deepEqual(Object.keys(turnStreamHandlers), streaming);
  assert.deepEqual(streaming, ['postTurn']);
  assert.ok(
    streaming.every((name) => hostRoutes[name].produces === 'json'),
    'only a json route streams on request',
  );

  const sse: Equal<RoutesOfKind<'sse'>, 'sessionEvents' | 'hostEvents' | 'historyEvents'> = true;
  const streams: Equal<StreamingRouteName, 'postTurn'> = true;
  // @ts-expect-error hostEvents is an sse route too
  const partial: Equal<RoutesOfKind<'sse'>, 'sessionEvents'> = true;
  assert.ok(sse && streams && partial);

  const { info: _info, ...withoutInfo } = jsonHandlers;
  // @ts-expect-error a json route without its handler (as a route added to hostRoutes alone would be)
  const incomplete: JsonHandlers = withoutInfo;
  // @ts-expect-error sessionEvents is an sse route: the json table cannot answer it
  const foreign: JsonHandlers = { ...jsonHandlers, sessionEvents: async () => ({}) };
  assert.equal(Object.keys(incomplete).length + 2, Object.keys(foreign).length);
});

test('path parameters are typed from the path: a misspelled one does not compile', async () => {
  const keys: Equal<PathParamKeys<'/api/sessions/:id/turns/:turnId/cancel'>, 'id' | 'turnId'> = true;
  const none: Equal<PathParamKeys<'/api/info'>, never> = true;
  assert.ok(keys && none);
  const params: RouteParams<'cancelTurn'> = { id: 's1', turnId: 't1' };
  // @ts-expect-error the parameter is `turnId`
  assert.equal(params.turnid, undefined);
  // @ts-expect-error getAttachment's only parameter is `attachmentId`
  const misnamed: RouteHandler<'getAttachment'> = async (_c, { id }) => new Response(id);
  // @ts-expect-error a route without parameters has none to read
  const absent: RouteHandler<'hostEvents'> = async (_c, { id }) => new Response(id);
  assert.equal(typeof misnamed, typeof absent);

  // At run time the router fills exactly those names, decoded.
  const { call, service } = appForTest();
  service.addSession('s 1');
  await call('/api/sessions/s%201/turns/t%2F9/cancel', { method: 'POST' });
  assert.deepEqual(service.calls, [{ method: 'cancelTurn', args: ['s 1', 't/9', {}] }]);
});

test('each route lists its errors once, in the order of hostErrorCodes, the common ones apart', () => {
  // @ts-expect-error an error list holds only HostErrorCodes
  const typo: RouteDefinition['errors'] = ['validation_failed', 'not_founds'];
  assert.equal(typo.length, 2);
  const common: readonly string[] = commonRouteErrors;
  for (const name of names) {
    const { errors } = hostRoutes[name] as RouteDefinition;
    const ordered = hostErrorCodes.filter((code) => errors.includes(code));
    assert.deepEqual(errors, ordered, `${name}: each code once, in the order of hostErrorCodes`);
    assert.ok(
      errors.every((code) => !common.includes(code) || code === 'forbidden'),
      `${name}: a common code is listed once for all routes (forbidden only for a route's own refusal)`,
    );
  }
});

test('each route lists what the HTTP layer itself answers for its body and its query', () => {
  const bodyErrors = ['bad_request', 'validation_failed', 'payload_too_large', 'unsupported_media_type'] as const;
  for (const name of names) {
    const route = hostRoutes[name] as RouteDefinition;
    // The binary route reads no query string; every other route validates its own (or refuses any).
    const readsQuery = route.produces !== 'binary';
    if (route.body !== undefined) {
      for (const code of bodyErrors) assert.ok(route.errors.includes(code), `${name}: a body can answer ${code}`);
    } else {
      assert.ok(!route.errors.includes('bad_request'), `${name} reads no body`);
      assert.ok(!route.errors.includes('payload_too_large'), `${name} reads no body`);
    }
    assert.equal(route.errors.includes('validation_failed'), readsQuery || route.body !== undefined, name);
  }
});
