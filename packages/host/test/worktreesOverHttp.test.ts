import assert from 'node:assert/strict';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HostApiError } from '@outrigger/host-api';
import { runGit } from '../src/git/runGit.ts';
import { bashCall, caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { runTurnAllowing } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * Sessions in their own worktree (issue 18) over HTTP: two sessions on one repository, real Claude Code
 * changing the same line of the same file in each; merging the first moves the base branch, merging the
 * second reports the conflict and changes nothing; discard removes the worktree and its branch.
 */

const cases = caseScripts();
let testHost: TestHost;

before(async () => {
  testHost = await startTestHost({ rules: [cases.rule] });
});
after(async () => {
  await testHost?.close();
});

const identity = { GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@u', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@u' };
const git = async (cwd: string, ...args: string[]) => (await runGit(args, { cwd })).stdout.toString().trim();

async function worktreeSession(repo: string, title: string) {
  const created = await testHost.client.call('createSession', {
    body: { cwd: repo, title, permissionMode: 'acceptEdits', worktree: true },
  });
  const snapshot = await testHost.client.call('getSession', { params: { id: created.id } });
  return { id: created.id, cwd: created.session.cwd, worktree: snapshot.session.worktree };
}

test('two worktree sessions change the same line: the first merges (fast-forward), the second conflicts and nothing changes; discard removes both', async () => {
  const repo = join(testHost.cwd, 'shared-repo');
  await mkdir(repo, { recursive: true });
  await runGit(['init', '-q', '-b', 'main'], { cwd: repo });
  await writeFile(join(repo, 'shared.txt'), 'line one\nthe line both change\nline three\n');
  await runGit(['add', '-A'], { cwd: repo });
  await runGit(['commit', '-q', '-m', 'base'], { cwd: repo, env: identity });
  const baseCommit = await git(repo, 'rev-parse', 'HEAD');

  const first = await worktreeSession(repo, 'First change');
  const second = await worktreeSession(repo, 'Second change');
  assert.equal(first.worktree?.branch, 'outrigger/first-change');
  assert.equal(first.worktree?.baseBranch, 'main');
  assert.equal(first.worktree?.baseCommit, baseCommit);
  assert.notEqual(first.cwd, second.cwd, 'each session has a directory of its own');
  assert.ok(first.cwd.startsWith(testHost.dataDir), 'the worktree is under the data directory');

  for (const [session, word] of [
    [first, 'FIRST'],
    [second, 'SECOND'],
  ] as const) {
    const { frames } = await runTurnAllowing(
      testHost.client,
      session.id,
      cases.prompt(`change the line to ${word}`, {
        prompt: bashCall(`sed -i 's/the line both change/${word} was here/' shared.txt`),
        afterTool: () => text('Changed.'),
      }),
    );
    assert.equal((frames.at(-1)!.data as { outcome: string }).outcome, 'completed');
  }
  assert.equal(await readFile(join(repo, 'shared.txt'), 'utf8'), 'line one\nthe line both change\nline three\n');

  const status = await testHost.client.call('getWorktree', { params: { id: first.id } });
  assert.deepEqual(
    status.files.map((file) => [file.path, file.status]),
    [['shared.txt', 'modified']],
  );
  assert.equal(status.uncommitted, true);

  const merged = await testHost.client.call('worktreeAction', {
    params: { id: first.id },
    body: { action: 'merge' },
  });
  assert.equal(merged.fastForward, true);
  assert.equal(await git(repo, 'rev-parse', 'main'), merged.worktree.mergedCommit);
  assert.equal(await readFile(join(repo, 'shared.txt'), 'utf8'), 'line one\nFIRST was here\nline three\n');

  const branchesBefore = await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)');
  const statusBefore = await git(second.cwd, 'status', '--porcelain');
  await assert.rejects(
    testHost.client.call('worktreeAction', { params: { id: second.id }, body: { action: 'merge' } }),
    (error) => {
      assert.ok(error instanceof HostApiError);
      assert.equal(error.status, 409);
      assert.deepEqual(
        error.details.map((detail) => detail.path),
        ['shared.txt'],
      );
      return true;
    },
  );
  assert.equal(await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'), branchesBefore);
  assert.equal(await git(second.cwd, 'status', '--porcelain'), statusBefore, 'the second worktree is as it was');
  assert.equal(await readFile(join(second.cwd, 'shared.txt'), 'utf8'), 'line one\nSECOND was here\nline three\n');

  const discarded = await testHost.client.call('worktreeAction', {
    params: { id: second.id },
    body: { action: 'discard', confirm: true },
  });
  assert.equal(discarded.worktree.state, 'discarded');
  await assert.rejects(access(second.cwd), 'the worktree directory is gone');
  assert.equal(await git(repo, 'branch', '--list', 'outrigger/second-change'), '');
  const closed = await testHost.client.call('getSession', { params: { id: second.id } });
  assert.equal(closed.session.closed, true);
  await testHost.client.call('closeSession', { params: { id: first.id } });
});

test('a worktree is refused for a directory that is no git repository, at the worktree field', async () => {
  const plain = join(testHost.cwd, 'no-repo');
  await mkdir(plain, { recursive: true });
  await assert.rejects(testHost.client.call('createSession', { body: { cwd: plain, worktree: true } }), (error) => {
    assert.ok(error instanceof HostApiError);
    assert.equal(error.status, 400);
    assert.equal(error.details[0]?.path, 'worktree');
    return true;
  });
});
