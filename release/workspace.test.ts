import assert from 'node:assert/strict';
import { test } from 'node:test';
import { versionMismatches, type WorkspaceManifest } from './workspace.ts';

const at = (name: string, version: string, dependencies: Record<string, string> = {}): WorkspaceManifest => ({
  name,
  version,
  dependencies,
});

test('one version for the set: agreeing packages and pins have no mismatch', () => {
  assert.deepEqual(
    versionMismatches([
      at('outrigger', '1.2.0', { '@outrigger/host': '1.2.0' }),
      at('@outrigger/host', '1.2.0', { '@outrigger/protocol': '1.2.0', zod: '4.6.7' }),
      at('@outrigger/protocol', '1.2.0'),
    ]),
    [],
  );
});

test('a package at another version, and a pin of ours at another version, are each named', () => {
  assert.deepEqual(
    versionMismatches([
      at('outrigger', '1.2.0'),
      at('@outrigger/protocol', '1.1.0'),
      { ...at('@outrigger/web', '1.2.0'), devDependencies: { '@outrigger/host-api': '1.1.0', vite: '8.4.0' } },
    ]),
    [
      '@outrigger/protocol is at 1.1.0, the set at 1.2.0',
      '@outrigger/web pins @outrigger/host-api@1.1.0, the set is at 1.2.0',
    ],
  );
});

test('the repository as it is keeps one version', () => {
  assert.deepEqual(versionMismatches(), []);
});
