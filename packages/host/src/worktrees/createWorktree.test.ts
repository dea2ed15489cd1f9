import assert from 'node:assert/strict';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createWorktree, repositoryRoot } from './createWorktree.ts';
import { branchTips, git, repositoryWith, tempDir } from './testing/tempRepository.ts';

test('createWorktree makes a branch outrigger/<slug> from HEAD in <worktreesDir>/<slug>, 0700, running in the same subdirectory', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'README.md': 'hello\n', 'src/app/main.ts': 'x\n' });
  const head = await git(repo, 'rev-parse', 'HEAD');

  const checkout = await createWorktree({ dir: join(repo, 'src', 'app'), worktreesDir, slug: 'Fix the Login bug!' });

  assert.equal(checkout.repoRoot, repo);
  assert.equal(checkout.branch, 'outrigger/fix-the-login-bug');
  assert.equal(checkout.path, join(worktreesDir, 'fix-the-login-bug'));
  assert.equal(checkout.sessionCwd, join(checkout.path, 'src', 'app'));
  assert.equal(checkout.baseBranch, 'main');
  assert.equal(checkout.baseCommit, head);
  assert.equal((await stat(worktreesDir)).mode & 0o777, 0o700);
  assert.equal(await readFile(join(checkout.sessionCwd, 'main.ts'), 'utf8'), 'x\n');
  assert.equal(await git(checkout.path, 'symbolic-ref', 'HEAD'), 'refs/heads/outrigger/fix-the-login-bug');
  assert.equal(await git(checkout.path, 'rev-parse', 'HEAD'), head);
  // The user's own work tree is left on its branch.
  assert.equal(await git(repo, 'symbolic-ref', 'HEAD'), 'refs/heads/main');
  assert.equal(await git(repo, 'status', '--porcelain'), '');
});

test('createWorktree starts a session in a subdirectory that has no tracked file', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  await mkdir(join(repo, 'empty', 'deeper'), { recursive: true });
  const checkout = await createWorktree({ dir: join(repo, 'empty', 'deeper'), worktreesDir, slug: 's' });
  assert.equal(checkout.sessionCwd, join(checkout.path, 'empty', 'deeper'));
  assert.ok((await stat(checkout.sessionCwd)).isDirectory());
});

test('createWorktree from a detached HEAD records no base branch', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  await git(repo, 'checkout', '--quiet', '--detach');
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'detached' });
  assert.equal(checkout.baseBranch, null);
  assert.equal(checkout.baseCommit, await git(repo, 'rev-parse', 'HEAD'));
});

test('createWorktree refuses a directory outside any repository and a repository without a commit', async (t) => {
  const outside = await tempDir(t);
  const worktreesDir = join(outside, 'worktrees');
  assert.equal(await repositoryRoot(outside), undefined);
  await assert.rejects(createWorktree({ dir: outside, worktreesDir, slug: 's' }), /is not in a git repository/);
  await assert.rejects(
    createWorktree({ dir: join(outside, 'missing'), worktreesDir, slug: 's' }),
    /is not a directory/,
  );

  const empty = join(outside, 'empty-repo');
  await mkdir(empty);
  await git(empty, 'init', '--quiet');
  assert.equal(await repositoryRoot(empty), empty);
  await assert.rejects(createWorktree({ dir: empty, worktreesDir, slug: 's' }), /has no commit yet/);
  // Nothing was made: the repository has only its own work tree.
  assert.equal((await git(empty, 'worktree', 'list', '--porcelain')).match(/^worktree /gm)?.length, 1);
});

test('createWorktree picks -2, -3, … when the branch or the directory is taken', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const first = await createWorktree({ dir: repo, worktreesDir, slug: 'task' });
  const second = await createWorktree({ dir: repo, worktreesDir, slug: 'task' });
  await git(repo, 'branch', 'outrigger/task-3');
  await mkdir(join(worktreesDir, 'task-4'));
  const fifth = await createWorktree({ dir: repo, worktreesDir, slug: 'TASK' });

  assert.deepEqual(
    [first, second, fifth].map((checkout) => [checkout.branch, checkout.path]),
    [
      ['outrigger/task', join(worktreesDir, 'task')],
      ['outrigger/task-2', join(worktreesDir, 'task-2')],
      ['outrigger/task-5', join(worktreesDir, 'task-5')],
    ],
  );
  assert.match(await branchTips(repo), /refs\/heads\/outrigger\/task-3 /);
});
