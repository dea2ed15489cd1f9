import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundaryVersions, parseVersion, satisfies } from './nodeRange.ts';

const v = parseVersion;

test('ranges as the lockfile writes them', () => {
  assert.equal(satisfies(v('20.20.2'), '>=22.18'), false);
  assert.equal(satisfies(v('22.18.0'), '>=22.18'), true);
  assert.equal(satisfies(v('18.0.0'), '>= 18'), true);
  assert.equal(satisfies(v('20.18.3'), '^20.19.0 || >=22.12.0'), false);
  assert.equal(satisfies(v('20.19.0'), '^20.19.0 || >=22.12.0'), true);
  assert.equal(satisfies(v('21.7.0'), '^20.19.0 || >=22.12.0'), false);
  assert.equal(satisfies(v('22.11.0'), '^20.19.0 || >=22.12.0'), false);
  assert.equal(satisfies(v('24.21.0'), '^20.19.0 || >=22.12.0'), true);
  assert.equal(satisfies(v('13.7.0'), '^10 || ^12 || ^13.7 || ^14 || >=15.0.1'), true);
  assert.equal(satisfies(v('13.6.9'), '^10 || ^12 || ^13.7 || ^14 || >=15.0.1'), false);
  assert.equal(satisfies(v('15.0.0'), '^10 || ^12 || ^13.7 || ^14 || >=15.0.1'), false);
  assert.equal(satisfies(v('10.0.0'), '>= 10.x'), true);
  assert.equal(satisfies(v('20.0.0'), '>20'), false);
  assert.equal(satisfies(v('20.5.0'), '<=20'), true);
  assert.equal(satisfies(v('22.1.0'), '~22.1'), true);
  assert.equal(satisfies(v('22.2.0'), '~22.1'), false);
  assert.equal(satisfies(v('0.3.5'), '^0.3.1'), true);
  assert.equal(satisfies(v('0.4.0'), '^0.3.1'), false);
});

test('an unknown form throws instead of passing', () => {
  assert.throws(() => satisfies(v('20.0.0'), 'latest'), /unsupported version/);
  assert.throws(() => satisfies(v('20.0.0'), '>=20 ||'), /empty alternative/);
});

test('the boundary versions are every bound of every range', () => {
  assert.deepEqual(
    boundaryVersions(['^20.19.0 || >=22.12.0', '>=18']).map((version) => version.join('.')),
    ['0.0.0', '18.0.0', '20.19.0', '21.0.0', '22.12.0'],
  );
});
