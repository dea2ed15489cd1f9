import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { MAX_ECHOED_LENGTH } from './echoedValue.ts';
import { MAX_REQUEST_NESTING } from './jsonNesting.ts';
import { isPlainObject } from './plainObject.ts';
import { parseRequestLine } from './requestLine.ts';
import { parseRequestPayload } from './requests/index.ts';
import { isRequestType, requestTypes } from './requestTypes.ts';
import { assertFuzz } from './testing/fuzz.ts';
import {
  assertOrdinaryPrototypes,
  fieldsObjectText,
  hostileJsonText,
  keyText,
  nestedText,
  snapshotBuiltinPrototypes,
  stringText,
} from './testing/hostileJson.ts';
import { requestFieldNames } from './testing/requestFields.ts';
import { goodFieldValue, requestLineText } from './testing/requestLines.ts';

/*
 * Property-based fuzzing of the sidecar's request parser (issue 11): whatever a line holds, parseRequestLine
 * and parseRequestPayload return (never throw), a rejected line gets a non-empty, bounded message, an
 * accepted one is a known request whose payload either parses or fails with a message, and nothing a line
 * holds changes a prototype. Each property runs with the fixed and a random seed (see testing/fuzz.ts).
 */

/** The longest message a rejection may carry: the fixed texts plus one bounded echo. */
const MAX_ERROR_LENGTH = 200 + MAX_ECHOED_LENGTH;

function checkLine(line: string): void {
  const untouched = snapshotBuiltinPrototypes();
  const parsed = parseRequestLine(line);
  untouched();
  if (line.trim() === '') {
    assert.deepEqual(parsed, { kind: 'blank' });
    return;
  }
  if (parsed.kind === 'invalid') {
    assert.equal(typeof parsed.error, 'string');
    assert.ok(parsed.error.length > 0 && parsed.error.length <= MAX_ERROR_LENGTH, `error size ${parsed.error.length}`);
    if (parsed.id !== undefined) assert.ok(parsed.id !== '', 'a correlated error names a non-empty id');
    return;
  }
  assert.equal(parsed.kind, 'request');
  const { request } = parsed;
  assert.equal(request.version, 10);
  assert.ok(isRequestType(request.type));
  assert.ok(isPlainObject(request.payload));
  const payload = parseRequestPayload(request.type, request.payload);
  untouched();
  if (payload.ok) {
    assertOrdinaryPrototypes(payload.value, `${request.type} payload`);
    // What a handler receives can always be written back out as JSON (an event, a diagnostic).
    JSON.stringify(payload.value);
  } else {
    assert.ok(payload.error.length > 0 && payload.error.length <= MAX_ERROR_LENGTH, payload.error);
  }
}

describe('request line fuzz', () => {
  test('any line: a blank, a known request with a payload that parses or fails clearly, or a bounded error', async () => {
    await assertFuzz('parseRequestLine', fc.property(requestLineText, checkLine), { numRuns: 4_000 });
  });

  test('payloads of every request type with hostile fields never throw and never pollute', async () => {
    const payloadCase = fc
      .constantFrom(...requestTypes)
      .chain((type) => fc.tuple(fc.constant(type), fieldsObjectText(requestFieldNames(type), goodFieldValue)));
    await assertFuzz(
      'parseRequestPayload',
      fc.property(payloadCase, ([type, text]) => {
        const untouched = snapshotBuiltinPrototypes();
        const result = parseRequestPayload(type, JSON.parse(text));
        untouched();
        if (result.ok) assertOrdinaryPrototypes(result.value, type);
        else assert.ok(result.error.length > 0 && result.error.length <= MAX_ERROR_LENGTH);
      }),
      { numRuns: 3_000 },
    );
  });

  test('nesting up to the limit is read, beyond it refused before parsing, at any depth', () => {
    const line = (inner: string) =>
      `{"version":10,"id":"d","type":"submit_interactive","payload":{"agentSessionId":"s","turnId":"t","requestId":"r","payload":${inner}}}`;
    // The envelope, its payload and the answer payload are three levels; the innermost {} one more.
    const atLimit = parseRequestLine(line(nestedText(MAX_REQUEST_NESTING - 3, 'object', '{}')));
    assert.equal(atLimit.kind, 'request');
    for (const depth of [MAX_REQUEST_NESTING, 10_000, 1_000_000]) {
      for (const kind of ['array', 'object'] as const) {
        assert.deepEqual(parseRequestLine(line(nestedText(depth, kind))), {
          kind: 'invalid',
          error: `sidecar request nests deeper than ${MAX_REQUEST_NESTING} levels`,
          id: 'd',
        });
        const version = parseRequestLine(`{"version":${nestedText(depth, kind)},"type":"close"}`);
        assert.equal(version.kind, 'invalid');
      }
    }
  });

  test('a too-deep line is correlated exactly when JSON.parse would find a usable top-level id', async () => {
    // The scan must agree with the full parse on every shallow object, and splicing a too-deep member in
    // must not change what it reads: the oracle is JSON.parse on the line without that member.
    const idKey = fc.constantFrom('"id"', '"i\\u0064"', '"id "', '"ID"');
    const idValue = fc.oneof(stringText, hostileJsonText);
    const member = fc.oneof(fc.tuple(keyText, hostileJsonText), fc.tuple(idKey, idValue));
    const space = fc.constantFrom('', ' ', '\n', '\t ');
    const deepCase = fc.record({
      members: fc.array(fc.tuple(member, space), { maxLength: 5 }),
      at: fc.nat(),
      deep: fc.tuple(
        fc.integer({ min: MAX_REQUEST_NESTING, max: 3_000 }),
        fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>,
      ),
    });
    await assertFuzz(
      'too-deep line id',
      fc.property(deepCase, ({ members, at, deep: [depth, kind] }) => {
        const texts = members.map(([[key, value], pad]) => `${pad}${key}${pad}:${pad}${value}${pad}`);
        const shallow = JSON.parse(`{${texts.join(',')}}`) as Record<string, unknown>;
        const expected = typeof shallow.id === 'string' && shallow.id !== '' ? shallow.id : undefined;
        texts.splice(at % (texts.length + 1), 0, `"payload":${nestedText(depth, kind)}`);
        const parsed = parseRequestLine(`{${texts.join(',')}}`);
        const error = `sidecar request nests deeper than ${MAX_REQUEST_NESTING} levels`;
        assert.deepEqual(
          parsed,
          expected === undefined ? { kind: 'invalid', error } : { kind: 'invalid', error, id: expected },
        );
      }),
      { numRuns: 1_500 },
    );
  });

  test('rejected versions and types are echoed only when short and printable', () => {
    const error = (line: string) => {
      const parsed = parseRequestLine(line);
      assert.equal(parsed.kind, 'invalid');
      return parsed.error;
    };
    assert.equal(error('{"version":9}'), 'unsupported sidecar protocol version 9');
    assert.equal(error('{"version":"10"}'), 'unsupported sidecar protocol version 10');
    assert.equal(
      error(`{"version":"${'x'.repeat(5000)}"}`),
      'unsupported sidecar protocol version (a string of 5000 characters)',
    );
    assert.equal(error('{"version":[1,[2]]}'), 'unsupported sidecar protocol version (an array of 2 items)');
    assert.equal(error('{"version":{"a":1}}'), 'unsupported sidecar protocol version (an object)');
    assert.equal(error('{"version":"\\u001b[2J"}'), 'unsupported sidecar protocol version (a string of 4 characters)');
    assert.equal(error('{"version":10,"type":"\\u202eevil"}'), 'unsupported request type (a string of 5 characters)');
    assert.equal(
      error(`{"version":10,"type":"${'t'.repeat(65)}"}`),
      'unsupported request type (a string of 65 characters)',
    );
  });

  test('pollution keys in the envelope and payload stay own data and never reach a prototype', () => {
    const parsed = parseRequestLine(
      '{"version":10,"id":"p","type":"start","__proto__":{"polluted":1},"payload":{"agentSessionId":"s","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"env":{"__proto__":{"polluted":"1"},"OK":"1"},"settings":{"__proto__":{"model":"evil"}}}}',
    );
    assert.equal(parsed.kind, 'request');
    const payload = parseRequestPayload('start', parsed.request.payload);
    assert.ok(payload.ok);
    assert.deepEqual(payload.value.env, { OK: '1' });
    assert.equal(payload.value.settings.model, '');
    assert.equal((payload.value as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assertOrdinaryPrototypes(payload.value, 'start');
  });
});
