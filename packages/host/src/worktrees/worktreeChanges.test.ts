import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createWorktree } from './createWorktree.ts';
import { commitAll, git, repositoryWith, writeFiles } from './testing/tempRepository.ts';
import { worktreeChanges } from './worktreeChanges.ts';

test('worktreeChanges reads committed, staged, modified and untracked files against the base, ignored ones left out, the index untouched', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, {
    '.gitignore': 'build/\n*.log\n',
    'committed.txt': 'one\n',
    'modified.txt': 'one\n',
    'staged.txt': 'one\n',
    'deleted.txt': 'one\n',
  });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'changes' });
  const cwd = checkout.path;
  await writeFiles(cwd, { 'committed.txt': 'one\ntwo\n' });
  await commitAll(cwd, 'on the branch');
  await writeFiles(cwd, {
    'modified.txt': 'changed\n',
    'staged.txt': 'staged\n',
    'untracked/new.txt': 'new\n',
    'build/out.js': 'ignored\n',
    'debug.log': 'ignored\n',
  });
  await git(cwd, 'add', 'staged.txt');
  await rm(join(cwd, 'deleted.txt'));
  const statusBefore = await git(cwd, 'status', '--porcelain', '--untracked-files=all');
  const indexBefore = await readFile(await git(cwd, 'rev-parse', '--path-format=absolute', '--git-path', 'index'));

  const changes = await worktreeChanges(checkout);

  const statuses = Object.fromEntries(changes.files.map((file) => [file.path, file.status]));
  assert.deepEqual(statuses, {
    'committed.txt': 'modified',
    'deleted.txt': 'deleted',
    'modified.txt': 'modified',
    'staged.txt': 'modified',
    'untracked/new.txt': 'added',
  });
  assert.equal(changes.files.find((file) => file.path === 'committed.txt')?.additions, 1);
  assert.equal(changes.commitsAhead, 1);
  assert.equal(changes.uncommitted, true);
  assert.equal(await git(cwd, 'status', '--porcelain', '--untracked-files=all'), statusBefore);
  assert.match(statusBefore, /^M {2}staged\.txt$/m);
  assert.deepEqual(
    await readFile(await git(cwd, 'rev-parse', '--path-format=absolute', '--git-path', 'index')),
    indexBefore,
  );
});

test('worktreeChanges of an untouched worktree is empty, and of committed work alone is not uncommitted', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'quiet' });
  assert.deepEqual(await worktreeChanges(checkout), { files: [], commitsAhead: 0, uncommitted: false });

  await writeFiles(checkout.path, { 'a.txt': 'b\n' });
  await commitAll(checkout.path, 'one');
  await writeFiles(checkout.path, { 'a.txt': 'c\n' });
  await commitAll(checkout.path, 'two');
  const changes = await worktreeChanges(checkout);
  assert.deepEqual(
    changes.files.map((file) => file.path),
    ['a.txt'],
  );
  assert.equal(changes.commitsAhead, 2);
  assert.equal(changes.uncommitted, false);
});
