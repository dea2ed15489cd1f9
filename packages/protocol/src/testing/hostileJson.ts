import fc from 'fast-check';

/*
 * Arbitraries for the bad input every parser of ours must survive (issue 11): JSON text written by hand
 * rather than by JSON.stringify, so it can hold what a hostile or broken peer sends: prototype-pollution
 * keys as own keys, duplicate keys, numbers no double holds, lone surrogates, control characters, bidi
 * overrides, nesting thousands deep. The sidecar's request fuzz and the host's route fuzz share them.
 */

/** Keys that change an object's prototype or shadow its methods when a parser assigns them naively. */
export const pollutionKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  '__lookupSetter__',
  'isPrototypeOf',
] as const;

/** Number literals that are valid JSON but not what a double or a safe integer holds. */
const oddNumberLiterals = [
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '0.0',
  '9007199254740993',
  '-9007199254740993',
  '123456789012345678901234567890123456789012345678901234567890',
  '1E+2',
  '0.1e1',
  '10.0',
  '1e1',
  '4.9e-324',
  '1.7976931348623157e308',
];

/** Raw string-literal bodies JSON.stringify never writes: lone surrogates, NUL, escapes of everything. */
const oddStringBodies = [
  '\\ud800',
  '\\udfff',
  '\\udfff\\ud800',
  '\\u0000',
  '\\u202e',
  '\\u2028\\u2029',
  '\\u001b[2J',
  '\\/\\b\\f\\n\\r\\t',
  '../../etc/passwd',
  '..\\\\..\\\\windows',
  '/etc/shadow',
  '%2e%2e%2f',
  'file:///etc/passwd',
];

/** A JSON number literal, ordinary or odd. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }).map(String),
  fc.constantFrom(...oddNumberLiterals),
);

/** A JSON string literal (quotes included): any code point including lone surrogates, or an odd escape. */
export const stringText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 24 }).map((value) => JSON.stringify(value)),
  fc.string({ unit: 'binary', maxLength: 24 }).map((value) => JSON.stringify(value)),
  fc.constantFrom(...pollutionKeys).map((value) => JSON.stringify(value)),
  fc.constantFrom(...oddStringBodies).map((body) => `"${body}"`),
);

/** A key of an object literal: mostly pollution keys and unicode, so they meet every parser. */
export const keyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...pollutionKeys).map((key) => JSON.stringify(key)) },
  { weight: 1, arbitrary: stringText },
);

/** A scalar JSON literal. */
export const scalarText: fc.Arbitrary<string> = fc.oneof(
  numberText,
  stringText,
  fc.constantFrom('true', 'false', 'null'),
);

const { value: jsonText } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalarText, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(keyText, tie('value')), { maxLength: 4 })
    .map((entries) => `{${entries.map(([key, value]) => `${key}:${value}`).join(',')}}`),
}));

/** Any JSON text (valid), with hostile keys and scalars at every level. */
export const hostileJsonText: fc.Arbitrary<string> = jsonText;

/** An object literal whose keys include pollution keys, holding hostile values. */
export const hostileObjectText: fc.Arbitrary<string> = fc
  .array(fc.tuple(keyText, jsonText), { minLength: 1, maxLength: 4 })
  .map((entries) => `{${entries.map(([key, value]) => `${key}:${value}`).join(',')}}`);

/** Arrays or objects nested `depth` deep, the innermost holding a scalar. */
export function nestedText(depth: number, kind: 'array' | 'object', inner = '1'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;
}

/** Nesting from just inside to far beyond any sane limit. */
export const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 30_000 }), fc.constantFrom<'array' | 'object'>('array', 'object'))
  .map(([depth, kind]) => nestedText(depth, kind));

/** Broken JSON: a prefix of valid text, stray bytes, unbalanced brackets, a JS literal JSON lacks. */
export const brokenJsonText: fc.Arbitrary<string> = fc.oneof(
  hostileObjectText.chain((text) => fc.nat({ max: Math.max(0, text.length - 1) }).map((end) => text.slice(0, end))),
  fc.constantFrom('{', '}', '[', '{"a":}', '{"a" 1}', "{'a':1}", '{"a":1,}', 'NaN', 'undefined', '{"a":Infinity}'),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/**
 * An object literal for one request or route body: each known field (from `fieldNames`) present three times
 * in four, its value mostly what the field expects (`goodValue`, so cases get past validation and reach the
 * handler) or else hostile JSON, plus stray pollution keys, all in any order.
 */
export function fieldsObjectText(
  fieldNames: readonly string[],
  goodValue: (field: string) => fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  const fields = fieldNames.map((field) =>
    fc.option(
      fc
        .oneof({ weight: 4, arbitrary: goodValue(field) }, { weight: 1, arbitrary: hostileJsonText })
        .map((value) => `${JSON.stringify(field)}:${value}`),
      { freq: 4 },
    ),
  );
  const extras = fc.array(
    fc.tuple(keyText, hostileJsonText).map(([key, value]) => `${key}:${value}`),
    { maxLength: 2 },
  );
  return fc
    .tuple(fc.tuple(...fields), extras)
    .chain(([present, extra]) => {
      const entries = [...present.filter((entry): entry is string => entry !== null), ...extra];
      return fc.shuffledSubarray(entries, { minLength: entries.length });
    })
    .map((entries) => `{${entries.join(',')}}`);
}

/** Every object and array reachable from `value` has a standard prototype, and none was added to. */
export function assertOrdinaryPrototypes(value: unknown, where: string): void {
  const stack: unknown[] = [value];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    seen.add(item);
    const prototype = Object.getPrototypeOf(item);
    const expected = Array.isArray(item) ? Array.prototype : Object.prototype;
    if (prototype !== expected && prototype !== null && !(item instanceof Date) && !(item instanceof Error)) {
      throw new Error(`${where}: an object's prototype was replaced`);
    }
    for (const key of Object.keys(item)) stack.push((item as Record<string, unknown>)[key]);
  }
}

/** Object.prototype and Array.prototype are as a fresh realm has them: no key was planted on them. */
export function snapshotBuiltinPrototypes(): () => void {
  const objectKeys = Reflect.ownKeys(Object.prototype).map(String).sort().join(',');
  const arrayKeys = Reflect.ownKeys(Array.prototype).map(String).sort().join(',');
  return () => {
    if (Reflect.ownKeys(Object.prototype).map(String).sort().join(',') !== objectKeys) {
      throw new Error('Object.prototype was polluted');
    }
    if (Reflect.ownKeys(Array.prototype).map(String).sort().join(',') !== arrayKeys) {
      throw new Error('Array.prototype was polluted');
    }
  };
}
