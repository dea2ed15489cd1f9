import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { eventOfFrame, lenientParse } from './lenientParse.ts';

const schema = z.object({ seq: z.number(), title: z.string(), startedAt: z.number().nullable() });

test('a payload of the contract is parsed; one a version apart is used as sent and reported once', (t) => {
  const warn = t.mock.method(console, 'warn', () => undefined);
  assert.deepEqual(lenientParse(schema, { seq: 1, title: 'a', startedAt: null, extra: 1 }, 'x'), {
    seq: 1,
    title: 'a',
    startedAt: null,
  });
  const older = { seq: 2, title: 'b' };
  assert.equal(lenientParse(schema, older, 'session'), older);
  assert.equal(lenientParse(schema, { seq: 3, title: 'c' }, 'session')?.seq, 3);
  assert.equal(warn.mock.callCount(), 1);
  assert.match(String(warn.mock.calls[0]?.arguments[0]), /session event differs .* at startedAt/);
  assert.equal(lenientParse(schema, 'garbage', 'session'), null);
});

test('a frame becomes a typed event of its stream; an unknown type or a non-object payload is dropped', () => {
  const schemas = { title: schema };
  const data = { seq: 1, title: 'a', startedAt: null };
  assert.deepEqual(eventOfFrame(schemas, { type: 'title', data }, 'session'), { type: 'title', data });
  assert.equal(eventOfFrame(schemas, { type: 'toString', data }, 'session'), null);
  assert.equal(eventOfFrame(schemas, { type: 'title', data: 'garbage' }, 'session'), null);
});
