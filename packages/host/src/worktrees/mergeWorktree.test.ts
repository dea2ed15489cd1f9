import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createWorktree } from './createWorktree.ts';
import { mergeWorktree } from './mergeWorktree.ts';
import { branchTips, commitAll, git, repositoryWith, writeFiles } from './testing/tempRepository.ts';
import type { WorktreeCheckout } from './worktreeCheckout.ts';
import { WorktreeMergeRefused } from './worktreeMergeRefused.ts';

/** Everything a merge could change: every branch, both work trees' status and the worktree's files. */
async function repositoryState(repo: string, checkout: WorktreeCheckout, files: readonly string[]) {
  return {
    branches: await branchTips(repo),
    repoStatus: await git(repo, 'status', '--porcelain', '--untracked-files=all'),
    worktreeStatus: await git(checkout.path, 'status', '--porcelain', '--untracked-files=all'),
    worktreeHead: await git(checkout.path, 'rev-parse', 'HEAD'),
    files: await Promise.all(files.map((file) => readFile(join(checkout.path, file), 'utf8'))),
  };
}

async function parentsOf(cwd: string, commit: string): Promise<string[]> {
  return (await git(cwd, 'rev-list', '--parents', '-n', '1', commit)).split(' ').slice(1);
}

test('two sessions edit the same line: the first fast-forwards the base, the second conflicts and changes nothing', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'shared.txt': 'line one\nline two\n' });
  const first = await createWorktree({ dir: repo, worktreesDir, slug: 'first' });
  const second = await createWorktree({ dir: repo, worktreesDir, slug: 'second' });
  await writeFiles(first.path, { 'shared.txt': 'line one\nfirst session\n' });
  await commitAll(first.path, 'first');
  await writeFiles(second.path, { 'shared.txt': 'line one\nsecond session\n' });
  await commitAll(second.path, 'second, committed');
  // Uncommitted work too: the merge commits it only for the attempt, and must take that back.
  await writeFiles(second.path, { 'notes.txt': 'untracked\n', 'shared.txt': 'line one\nsecond session, edited\n' });

  const merged = await mergeWorktree(first, { message: 'First task' });

  const firstTip = await git(first.path, 'rev-parse', 'HEAD');
  assert.deepEqual(merged, { outcome: 'merged', commit: firstTip, fastForward: true });
  assert.equal(await git(repo, 'rev-parse', 'refs/heads/main'), firstTip);
  assert.equal(await readFile(join(repo, 'shared.txt'), 'utf8'), 'line one\nfirst session\n');
  assert.equal(await git(repo, 'status', '--porcelain'), '');

  const before = await repositoryState(repo, second, ['shared.txt', 'notes.txt']);
  assert.match(before.worktreeStatus, /^ M shared\.txt$/m);
  assert.match(before.worktreeStatus, /^\?\? notes\.txt$/m);

  const conflict = await mergeWorktree(second, { message: 'Second task' });

  assert.deepEqual(conflict, { outcome: 'conflict', files: ['shared.txt'] });
  assert.deepEqual(await repositoryState(repo, second, ['shared.txt', 'notes.txt']), before);
});

test('uncommitted work is committed onto the session branch by Outrigger, and the worktree then reads clean', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'dirty' });
  await writeFiles(checkout.path, { 'a.txt': 'changed\n', 'new/b.txt': 'b\n' });

  const merged = await mergeWorktree(checkout, { message: 'Add  b\nand change a' });

  assert.equal(merged.outcome, 'merged');
  const tip = await git(checkout.path, 'rev-parse', 'refs/heads/outrigger/dirty');
  assert.deepEqual(merged, { outcome: 'merged', commit: tip, fastForward: true });
  assert.equal(
    await git(checkout.path, 'log', '-1', '--format=%s|%an <%ae>', tip),
    'Outrigger session: Add b and change a|Outrigger <outrigger@localhost>',
  );
  assert.deepEqual(await parentsOf(repo, tip), [checkout.baseCommit]);
  assert.equal(await git(checkout.path, 'status', '--porcelain', '--untracked-files=all'), '');
  assert.equal(await readFile(join(repo, 'new', 'b.txt'), 'utf8'), 'b\n');
});

test('fastForward never makes a merge commit with the base and the session as parents', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const base = await git(repo, 'rev-parse', 'HEAD');
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'no-ff' });
  await writeFiles(checkout.path, { 'a.txt': 'session\n' });
  const sessionTip = await commitAll(checkout.path, 'session');

  const merged = await mergeWorktree(checkout, { message: 'Task', fastForward: 'never' });

  assert.equal(merged.outcome, 'merged');
  assert.equal(merged.outcome === 'merged' && merged.fastForward, false);
  const mainTip = await git(repo, 'rev-parse', 'refs/heads/main');
  assert.equal(merged.outcome === 'merged' && merged.commit, mainTip);
  assert.deepEqual(await parentsOf(repo, mainTip), [base, sessionTip]);
  assert.equal(await git(repo, 'log', '-1', '--format=%s', mainTip), "Merge branch 'outrigger/no-ff' into main");
  assert.equal(await readFile(join(repo, 'a.txt'), 'utf8'), 'session\n');
  assert.equal(await git(repo, 'status', '--porcelain'), '');
});

test('a base that moved on gets a merge commit of both sides, signed by the repository’s local identity', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
  await git(repo, 'config', '--local', 'user.name', 'Repo Owner');
  await git(repo, 'config', '--local', 'user.email', 'owner@example.com');
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'diverged' });
  await writeFiles(checkout.path, { 'a.txt': 'session\n' });
  const sessionTip = await commitAll(checkout.path, 'session');
  await writeFiles(repo, { 'b.txt': 'user\n' });
  const userTip = await commitAll(repo, 'user');

  const merged = await mergeWorktree(checkout, {});

  assert.equal(merged.outcome === 'merged' && merged.fastForward, false);
  const mainTip = await git(repo, 'rev-parse', 'refs/heads/main');
  assert.deepEqual(await parentsOf(repo, mainTip), [userTip, sessionTip]);
  assert.equal(
    await git(repo, 'log', '-1', '--format=%an <%ae>|%cn', mainTip),
    'Repo Owner <owner@example.com>|Repo Owner',
  );
  assert.deepEqual(
    [await readFile(join(repo, 'a.txt'), 'utf8'), await readFile(join(repo, 'b.txt'), 'utf8')],
    ['session\n', 'user\n'],
  );
});

test('a base branch checked out nowhere only has its ref moved', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'elsewhere' });
  await git(repo, 'switch', '--quiet', '-c', 'other');
  await writeFiles(checkout.path, { 'a.txt': 'session\n' });
  const sessionTip = await commitAll(checkout.path, 'session');

  const merged = await mergeWorktree(checkout, { fastForward: 'never' });

  const mainTip = await git(repo, 'rev-parse', 'refs/heads/main');
  assert.deepEqual(merged, { outcome: 'merged', commit: mainTip, fastForward: false });
  assert.deepEqual(await parentsOf(repo, mainTip), [checkout.baseCommit, sessionTip]);
  assert.equal(await git(repo, 'symbolic-ref', 'HEAD'), 'refs/heads/other');
  assert.equal(await readFile(join(repo, 'a.txt'), 'utf8'), 'a\n');
  assert.equal(await git(repo, 'status', '--porcelain'), '');
});

test('a merge is refused while the base work tree has uncommitted changes to a path it changes, and allowed beside others', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'blocked' });
  await writeFiles(checkout.path, { 'a.txt': 'session\n' });
  await writeFiles(repo, { 'a.txt': 'user edit\n' });
  const before = await repositoryState(repo, checkout, ['a.txt']);

  await assert.rejects(mergeWorktree(checkout, {}), (error) => {
    assert.ok(error instanceof WorktreeMergeRefused);
    assert.match(error.message, /main is checked out in .* with uncommitted changes to a\.txt/);
    return true;
  });
  assert.deepEqual(await repositoryState(repo, checkout, ['a.txt']), before);

  await writeFiles(repo, { 'a.txt': 'a\n', 'b.txt': 'user edit\n' });
  const merged = await mergeWorktree(checkout, {});
  assert.equal(merged.outcome, 'merged');
  assert.equal(await readFile(join(repo, 'a.txt'), 'utf8'), 'session\n');
  assert.equal(await git(repo, 'status', '--porcelain'), ' M b.txt');
});

test('nothing to merge: an untouched worktree, or one merged already', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  const checkout = await createWorktree({ dir: repo, worktreesDir, slug: 'idle' });
  assert.deepEqual(await mergeWorktree(checkout), { outcome: 'nothing_to_merge' });

  await writeFiles(checkout.path, { 'a.txt': 'session\n' });
  assert.equal((await mergeWorktree(checkout)).outcome, 'merged');
  const tips = await branchTips(repo);
  assert.deepEqual(await mergeWorktree(checkout), { outcome: 'nothing_to_merge' });
  assert.equal(await branchTips(repo), tips);
});

test('a worktree made from a detached HEAD, or one moved off its branch, is refused', async (t) => {
  const { repo, worktreesDir } = await repositoryWith(t, { 'a.txt': 'a\n' });
  await git(repo, 'checkout', '--quiet', '--detach');
  const detached = await createWorktree({ dir: repo, worktreesDir, slug: 'detached' });
  await writeFiles(detached.path, { 'a.txt': 'session\n' });
  await assert.rejects(mergeWorktree(detached), (error) => {
    assert.ok(error instanceof WorktreeMergeRefused);
    assert.match(error.message, /detached HEAD: there is no base branch/);
    return true;
  });

  await git(repo, 'checkout', '--quiet', 'main');
  const moved = await createWorktree({ dir: repo, worktreesDir, slug: 'moved' });
  await git(moved.path, 'switch', '--quiet', '-c', 'elsewhere');
  await assert.rejects(mergeWorktree(moved), /is on elsewhere, not on its branch outrigger\/moved/);
  assert.equal(await git(repo, 'rev-parse', 'refs/heads/main'), detached.baseCommit);
});
