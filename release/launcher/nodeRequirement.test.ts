import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAtLeast, nodeProblem, REQUIRED_NODE } from './nodeRequirement.ts';

test('versions compare by number, not by text', () => {
  assert.equal(isAtLeast('v22.18.0', '22.18.0'), true);
  assert.equal(isAtLeast('v22.9.0', '22.18.0'), false);
  assert.equal(isAtLeast('v24.0.0', '22.18.0'), true);
  assert.equal(isAtLeast('v22.18.1', '22.18.0'), true);
  assert.equal(isAtLeast('v20.20.2', '22.18.0'), false);
});

test('an old Node gets one line: what is needed, what was found, how to get it', () => {
  const line = nodeProblem('v20.20.2', '/usr/bin/node');
  assert.ok(line !== undefined);
  assert.equal(line.includes('\n'), false);
  assert.match(line, new RegExp(`Node\\.js ${REQUIRED_NODE.replaceAll('.', '\\.')} or newer`));
  assert.match(line, /this is Node\.js 20\.20\.2 \(\/usr\/bin\/node\)/);
  assert.match(line, /nodejs\.org/);
  assert.equal(nodeProblem(process.version, process.execPath), undefined);
});
