import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from './canonicalJson.ts';

describe('canonicalJson', () => {
  it('sorts keys at every level and skips undefined members', () => {
    const a = canonicalJson({ b: 1, a: { d: [1, { z: true, y: null }], c: 'x' }, u: undefined });
    const b = canonicalJson({ a: { c: 'x', d: [1, { y: null, z: true }] }, b: 1 });
    assert.equal(a, '{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}');
    assert.equal(a, b);
  });

  it('keeps array order significant', () => {
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  });

  it('fails closed on cycles but accepts shared, acyclic references', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.equal(canonicalJson(cyclic), undefined);
    const shared = { v: 1 };
    assert.equal(canonicalJson({ x: shared, y: shared }), '{"x":{"v":1},"y":{"v":1}}');
  });

  it('fails closed on values that are not plain JSON data', () => {
    assert.equal(canonicalJson({ f: () => 1 }), undefined);
    assert.equal(canonicalJson({ n: Number.NaN }), undefined);
    assert.equal(canonicalJson({ d: new Date(0) }), undefined);
    assert.equal(canonicalJson({ b: 1n }), undefined);
  });

  it('enforces the depth and byte limits', () => {
    let nested: unknown = 'leaf';
    for (let level = 0; level < 32; level += 1) nested = [nested];
    assert.notEqual(canonicalJson(nested, { maxDepth: 32 }), undefined);
    assert.equal(canonicalJson([nested], { maxDepth: 32 }), undefined);
    assert.notEqual(canonicalJson({ s: 'x'.repeat(90) }, { maxBytes: 100 }), undefined);
    assert.equal(canonicalJson({ s: 'x'.repeat(100) }, { maxBytes: 100 }), undefined);
    // Multi-byte characters count by their UTF-8 size.
    assert.equal(canonicalJson('é'.repeat(60), { maxBytes: 100 }), undefined);
  });
});
