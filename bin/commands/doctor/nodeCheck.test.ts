import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkNode } from './nodeCheck.ts';

test('a new enough Node passes and says what it needs', () => {
  const result = checkNode({ version: 'v24.1.0', execPath: '/usr/bin/node', required: '22.18.0' });
  assert.equal(result.status, 'ok');
  assert.equal(result.detail, 'v24.1.0 at /usr/bin/node (needs >= 22.18.0)');
});

test('an old Node fails with what is needed, what was found and how to get it', () => {
  const result = checkNode({ version: 'v22.17.1', execPath: '/usr/bin/node', required: '22.18.0' });
  assert.equal(result.status, 'FAIL');
  assert.match(result.detail, /needs Node\.js 22\.18\.0 or newer/);
  assert.match(result.detail, /this is Node\.js 22\.17\.1 \(\/usr\/bin\/node\)/);
  assert.match(result.detail, /nodejs\.org/);
});

test('without an explicit requirement it uses the launcher one (the running test Node meets it)', () => {
  assert.equal(checkNode({ version: process.version, execPath: process.execPath }).status, 'ok');
});
