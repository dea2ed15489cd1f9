import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nestsDeeperThan } from './jsonNesting.ts';

describe('nestsDeeperThan', () => {
  test('counts arrays and objects inside each other', () => {
    assert.equal(nestsDeeperThan('[[{"a":[1]}]]', 4), false);
    assert.equal(nestsDeeperThan('[[{"a":[1]}]]', 3), true);
    assert.equal(nestsDeeperThan('[[],[],{},{"a":{}}]', 3), false);
    assert.equal(nestsDeeperThan('[[],[],{},{"a":{}}]', 2), true);
  });

  test('brackets inside strings, escaped quotes included, do not count', () => {
    assert.equal(nestsDeeperThan('{"a":"[[[[{{{{"}', 1), false);
    assert.equal(nestsDeeperThan('{"a":"\\"[[[[","b":"\\\\"}', 1), false);
    assert.equal(nestsDeeperThan('{"a":"\\\\",[[1]]}', 2), true);
  });

  test('a million levels are measured without recursion', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    assert.equal(nestsDeeperThan(deep, 128), true);
    assert.equal(nestsDeeperThan(deep, 1_000_000), false);
  });
});
