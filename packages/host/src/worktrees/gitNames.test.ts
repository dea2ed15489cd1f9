import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertValidCheckout, isBranchName, sessionSlug } from './gitNames.ts';

test('sessionSlug reduces a title to [a-z0-9-], at most 40 characters, never empty', () => {
  assert.equal(sessionSlug('Fix the Login bug!'), 'fix-the-login-bug');
  assert.equal(sessionSlug('  --Café/überall: ../../etc  '), 'cafe-uberall-etc');
  assert.equal(sessionSlug('8f0c6a3e-1b2d-4c5e-9f00-aa11bb22cc33'), '8f0c6a3e-1b2d-4c5e-9f00-aa11bb22cc33');
  assert.equal(sessionSlug('a'.repeat(39) + ' tail'), 'a'.repeat(39));
  assert.equal(sessionSlug('x'.repeat(100)).length, 40);
  assert.equal(sessionSlug('日本語'), 'session');
  assert.equal(sessionSlug(''), 'session');
});

test('isBranchName accepts what git accepts and never something read as an option', () => {
  for (const name of ['main', 'feature/x_y.z', 'outrigger/task-2', 'release-1.0']) assert.ok(isBranchName(name), name);
  for (const name of ['', '@', '-f', '--force', 'a..b', 'a b', 'a~1', 'a^', 'a:b', 'a*', 'a[', 'a\\b', 'x.lock']) {
    assert.equal(isBranchName(name), false, name);
  }
  for (const name of ['.hidden', 'a/.b', 'a//b', '/a', 'a/', 'a.', 'a@{1}', 'tab\there', 'del\u007f']) {
    assert.equal(isBranchName(name), false, name);
  }
});

test('assertValidCheckout refuses a record with a relative path, an option-like branch or a bad commit id', () => {
  const valid = {
    repoRoot: '/r',
    path: '/d/w',
    branch: 'outrigger/w',
    baseBranch: 'main',
    baseCommit: 'a'.repeat(40),
    sessionCwd: '/d/w',
  };
  assertValidCheckout(valid);
  assertValidCheckout({ ...valid, baseBranch: null });
  assert.throws(() => assertValidCheckout({ ...valid, path: 'relative' }), /not an absolute path/);
  assert.throws(() => assertValidCheckout({ ...valid, baseBranch: '--delete' }), /not a branch name/);
  assert.throws(() => assertValidCheckout({ ...valid, baseCommit: 'HEAD~1' }), /not a commit id/);
});
