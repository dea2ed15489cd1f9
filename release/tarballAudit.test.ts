import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReleaseTarball } from './packRelease.ts';
import { SIZE_BUDGET_BYTES, tarballProblems } from './tarballAudit.ts';

function tarball(paths: string[], bytes = 1000): ReleaseTarball {
  return {
    name: '@outrigger/protocol',
    version: '0.1.0',
    file: '/tmp/x.tgz',
    stagedDir: '/tmp/stage/protocol',
    bytes,
    unpackedBytes: bytes * 4,
    files: paths.map((path) => ({ path, size: 10 })),
  };
}

test('a clean tarball has no problems', () => {
  assert.deepEqual(
    tarballProblems(tarball(['lib/index.js', 'lib/index.d.ts', 'package.json']), () => '{}'),
    [],
  );
});

test('test files, data, caches and an oversized tarball are each named', () => {
  const problems = tarballProblems(
    tarball(
      ['lib/a.test.js', 'lib/testing/index.js', '.data/host.db', 'dist/.compile-cache/x', 'lib/b.js'],
      (SIZE_BUDGET_BYTES['@outrigger/protocol'] ?? 0) + 1,
    ),
    () => '{}',
  );
  assert.equal(problems.filter((problem) => problem.includes('test file')).length, 2);
  assert.ok(problems.some((problem) => problem.includes('.data/host.db')));
  assert.ok(problems.some((problem) => problem.includes('.compile-cache')));
  assert.equal(
    problems.some((problem) => problem.includes('lib/b.js')),
    false,
  );
});

test('a source map with an absolute path fails, a relative one passes', () => {
  const maps: Record<string, string> = {
    'lib/a.js.map': JSON.stringify({ sources: ['../src/a.ts'] }),
    'lib/b.js.map': JSON.stringify({ sources: ['/home/dev/outrigger/src/b.ts'] }),
  };
  const problems = tarballProblems(tarball(Object.keys(maps)), (path) => maps[path] ?? '{}');
  assert.deepEqual(problems, ['@outrigger/protocol: lib/b.js.map names absolute paths (/home/dev/outrigger/src/b.ts)']);
});

test('a tarball over its budget says by how much', () => {
  const budget = SIZE_BUDGET_BYTES['@outrigger/protocol'] ?? 0;
  assert.match(tarballProblems(tarball([], budget + 1), () => '{}').join(), /over its/);
});
