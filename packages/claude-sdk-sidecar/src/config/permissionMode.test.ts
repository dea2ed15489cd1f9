import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canBypassPermissions, mapPermissionMode } from './permissionMode.ts';

test('bypass is allowed except for root outside a declared sandbox', () => {
  assert.equal(canBypassPermissions({ euid: 1000, env: {} }), true);
  assert.equal(canBypassPermissions({ euid: undefined, env: {} }), true);
  assert.equal(canBypassPermissions({ euid: 0, env: {} }), false);
  assert.equal(canBypassPermissions({ euid: 0, env: { IS_SANDBOX: 'true' } }), false);
  assert.equal(canBypassPermissions({ euid: 0, env: { IS_SANDBOX: '1' } }), true);
});

test('modes map to what the sidecar runs: dontAsk and unknown ids are default, bypass only when allowed', () => {
  const cases: [string, boolean, string][] = [
    ['default', true, 'default'],
    ['acceptEdits', false, 'acceptEdits'],
    ['auto', false, 'auto'],
    ['plan', false, 'plan'],
    [' dontAsk ', true, 'default'],
    ['', true, 'default'],
    ['yolo', true, 'default'],
    ['bypassPermissions', true, 'bypassPermissions'],
    ['bypassPermissions', false, 'default'],
  ];
  for (const [requested, allowed, expected] of cases) {
    assert.equal(mapPermissionMode(requested, allowed), expected, `${requested} (bypass ${allowed})`);
  }
});
