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
  brokenJsonText,
  deepJsonText,
  fieldsObjectText,
  hostileJsonText,
  keyText,
  nestedText,
  numberText,
  scalarText,
  snapshotBuiltinPrototypes,
  stringText,
} from './testing/hostileJson.ts';
import { requestFieldNames } from './testing/requestFields.ts';

/*
 * Property-based fuzzing of the sidecar's request parser (issue 11): whatever a line holds, parseRequestLine
 * and parseRequestPayload return (never throw), a rejected line gets a non-empty, bounded message, an
 * accepted one is a known request whose payload either parses or fails with a message, and nothing a line
 * holds changes a prototype. Each property runs with the fixed and a random seed (see testing/fuzz.ts).
 */

/** The longest message a rejection may carry: the fixed texts plus one bounded echo. */
const MAX_ERROR_LENGTH = 200 + MAX_ECHOED_LENGTH;

/** Values a field plausibly holds: a small pool of ids so requests meet each other, budgets, flags, blocks. */
const goodFieldValue = (field: string): fc.Arbitrary<string> => {
  if (/TimeoutMs$/.test(field)) return fc.oneof(fc.integer({ min: 1, max: 60_000 }).map(String), numberText);
  if (/^(restore|planMode)$/.test(field)) return fc.constantFrom('true', 'false');
  if (field === 'content') return fc.constant('[{"type":"text","text":"hi"},{"type":"image"},7,{"__proto__":{}}]');
  if (field === 'env') return fc.constant('{"A":"1","__proto__":{"polluted":"yes"},"constructor":"x"}');
  if (field === 'payload' || field === 'settings' || field === 'resumeCursor') return hostileJsonText;
  return fc.oneof(fc.constantFrom('"s1"', '"t1"', '"r1"', '"p1"', '" "', '""'), stringText);
};

const versionText = fc.oneof({ weight: 4, arbitrary: fc.constant('10') }, { weight: 1, arbitrary: hostileJsonText });
const typeText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...requestTypes).map((type) => JSON.stringify(type)) },
  { weight: 1, arbitrary: hostileJsonText },
);
const idText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).map((id) => JSON.stringify(`r-${id}`)) },
  { weight: 1, arbitrary: hostileJsonText },
);

/** A request envelope: the known fields in any order, each maybe absent, duplicated or hostile. */
const envelopeText: fc.Arbitrary<string> = fc
  .constantFrom(...requestTypes)
  .chain((type) =>
    fc.tuple(
      fc.option(versionText, { freq: 8 }),
      fc.option(
        fc.oneof({ weight: 5, arbitrary: fc.constant(JSON.stringify(type)) }, { weight: 1, arbitrary: typeText }),
      ),
      fc.option(idText),
      fc.option(
        fc.oneof(
          { weight: 5, arbitrary: fieldsObjectText(requestFieldNames(type), goodFieldValue) },
          { weight: 1, arbitrary: hostileJsonText },
        ),
        { freq: 8 },
      ),
      fc.array(fc.tuple(keyText, hostileJsonText), { maxLength: 2 }),
    ),
  )
  .chain(([version, type, id, payload, extra]) => {
    const entries: string[] = [];
    if (version !== null) entries.push(`"version":${version}`);
    if (type !== null) entries.push(`"type":${type}`);
    if (id !== null) entries.push(`"id":${id}`);
    if (payload !== null) entries.push(`"payload":${payload}`);
    for (const [key, value] of extra) entries.push(`${key}:${value}`);
    return fc.shuffledSubarray(entries, { minLength: entries.length }).map((shuffled) => `{${shuffled.join(',')}}`);
  });

/** What a line may hold: mostly envelopes, also any JSON, broken JSON, deep JSON, whitespace. */
const requestLineText: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: envelopeText },
  { weight: 2, arbitrary: hostileJsonText },
  { weight: 2, arbitrary: brokenJsonText },
  { weight: 1, arbitrary: deepJsonText },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t\r', '\u00a0', '\ufeff{"version":10,"type":"close"}') },
  { weight: 1, arbitrary: scalarText },
);

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
    if (parsed.id !== undefined) assert.ok(parsed.id.trim() !== '', 'a correlated error names a usable id');
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
        });
        const version = parseRequestLine(`{"version":${nestedText(depth, kind)},"type":"close"}`);
        assert.equal(version.kind, 'invalid');
      }
    }
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
