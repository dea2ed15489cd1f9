import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GitignoreRules } from './gitignoreRules.ts';

test('gitignore rules: names anywhere, anchored paths, directories only, negation, globs', () => {
  const rules = GitignoreRules.none
    .with('', '# comment\n\nnode_modules/\n*.log\n/build\n!keep.log\ndocs/**/*.tmp\nsecret?.txt\n')
    .with('pkg', 'local.json\n/dist/\n');
  assert.equal(rules.ignores('node_modules', true), true);
  assert.equal(rules.ignores('a/b/node_modules', true), true);
  assert.equal(rules.ignores('node_modules', false), false, 'a file named node_modules is not a directory');
  assert.equal(rules.ignores('debug.log', false), true);
  assert.equal(rules.ignores('a/debug.log', false), true);
  assert.equal(rules.ignores('keep.log', false), false, 'negated');
  assert.equal(rules.ignores('build', true), true);
  assert.equal(rules.ignores('src/build', true), false, '/build is anchored to the root');
  assert.equal(rules.ignores('docs/x/y/z.tmp', false), true);
  assert.equal(rules.ignores('docs/z.tmp', false), true);
  assert.equal(rules.ignores('secret1.txt', false), true);
  assert.equal(rules.ignores('secret10.txt', false), false);
  assert.equal(rules.ignores('pkg/local.json', false), true);
  assert.equal(rules.ignores('local.json', false), false, 'a nested .gitignore rules only below it');
  assert.equal(rules.ignores('pkg/dist', true), true);
  assert.equal(rules.ignores('pkg/src/dist', true), false);
  assert.equal(rules.ignores('src/index.ts', false), false);
});
