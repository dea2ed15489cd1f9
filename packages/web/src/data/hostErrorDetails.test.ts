import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostApiError } from '@outrigger/host-api';
import { conflictingPaths, isAboutField } from './hostErrorDetails.ts';

test('a refused merge names its files; other errors name none', () => {
  const conflict = new HostApiError(409, 'conflict', 'merging conflicts in 2 file(s)', [
    { path: 'src/greet.ts', message: 'changed on both sides' },
    { path: 'README.md', message: 'changed on both sides' },
  ]);
  assert.deepEqual(conflictingPaths(conflict), ['src/greet.ts', 'README.md']);
  assert.deepEqual(conflictingPaths(new HostApiError(409, 'conflict', 'a turn is running')), []);
  assert.deepEqual(
    conflictingPaths(new HostApiError(400, 'validation_failed', 'x', [{ path: 'cwd', message: 'x' }])),
    [],
  );
  assert.deepEqual(conflictingPaths(new Error('offline')), []);
});

test('a refusal about one field is told apart from one about the request', () => {
  const notARepo = new HostApiError(400, 'validation_failed', 'cannot make a worktree', [
    { path: 'worktree', message: 'not a git repository' },
  ]);
  assert.equal(isAboutField(notARepo, 'worktree'), true);
  assert.equal(isAboutField(notARepo, 'cwd'), false);
  assert.equal(isAboutField(new Error('offline'), 'worktree'), false);
});
