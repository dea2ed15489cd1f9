import assert from 'node:assert/strict';
import { mkdir, rm, stat } from 'node:fs/promises';
import { test } from 'node:test';
import { createWorktree } from './createWorktree.ts';
import { removeWorktree } from './removeWorktree.ts';
import { branchTips, commitAll, git, repositoryWith, writeFiles } from './testing/tempRepository.ts';

async function isGone(path: string): Promise<boolean> {
  return stat(path).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}

async function workTreeCount(repo: string): Promise<number> {
  return (await git(repo, 'worktree', 'list', '--porcelain')).match(/^worktree /gm)?.length ?? 0;
}

test('keep removes the worktree, uncommitted files and all, and leaves its branch', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'keep' });
  await writeFiles(checkout.path, { 'a.txt': 'kept\n' });
  const tip = await commitAll(checkout.path, 'work');
  await writeFiles(checkout.path, { 'scratch.txt': 'uncommitted\n' });

  await removeWorktree(checkout, { deleteBranch: false });

  assert.ok(await isGone(checkout.path));
  assert.equal(await workTreeCount(repo), 1);
  assert.equal(await git(repo, 'rev-parse', 'refs/heads/outrigger/keep'), tip);
});

test('discard removes the worktree and its branch; removing again, or after the directory vanished, is fine', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'discard' });
  await writeFiles(checkout.path, { 'a.txt': 'thrown away\n' });
  await commitAll(checkout.path, 'work');

  await removeWorktree(checkout, { deleteBranch: true });
  await removeWorktree(checkout, { deleteBranch: true });

  assert.ok(await isGone(checkout.path));
  assert.equal(await workTreeCount(repo), 1);
  assert.equal(await branchTips(repo), `refs/heads/main ${await git(repo, 'rev-parse', 'main')}`);

  const vanished = await createWorktree({ dir: repo, worktreesDir, slug: 'vanished' });
  await rm(vanished.path, { recursive: true, force: true });
  await removeWorktree(vanished, { deleteBranch: true });
  assert.equal(await workTreeCount(repo), 1);
  assert.doesNotMatch(await branchTips(repo), /vanished/);
});

test('removeWorktree leaves alone a directory at the path that is not a worktree of the repository', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'moved-out' });
  await removeWorktree(checkout, { deleteBranch: false });
  await mkdir(checkout.path);

  await removeWorktree(checkout, { deleteBranch: true });

  assert.ok((await stat(checkout.path)).isDirectory());
  assert.doesNotMatch(await branchTips(repo), /moved-out/);
});
