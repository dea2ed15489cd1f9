import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FILE_CHANGES_ARGS, parseFileChanges } from './fileChanges.ts';
import { GitError, runGit } from './runGit.ts';

const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

async function commitAll(cwd: string, message: string): Promise<string> {
  await runGit(['add', '-A'], { cwd });
  await runGit(['commit', '-q', '-m', message], { cwd, env: identity });
  return (await runGit(['rev-parse', 'HEAD'], { cwd })).stdout.toString().trim();
}

test('parseFileChanges reads additions, edits, a mode change, binary files, renames and deletions from real git', async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), 'outrigger-git-'));
  t.after(() => rm(cwd, { recursive: true, force: true }));
  await runGit(['init', '-q'], { cwd });
  await writeFile(join(cwd, 'a.txt'), 'one\ntwo\n');
  await writeFile(join(cwd, 'blob.bin'), Buffer.from([0, 1, 2]));
  await writeFile(join(cwd, 'old name.txt'), 'a file that is only renamed\n');
  await writeFile(join(cwd, 'gone.txt'), 'x\ny\n');
  const first = await commitAll(cwd, 'first');
  await writeFile(join(cwd, 'a.txt'), 'one\nTWO\nthree\n');
  await chmod(join(cwd, 'a.txt'), 0o755);
  await writeFile(join(cwd, 'blob.bin'), Buffer.from([0, 9]));
  await rm(join(cwd, 'old name.txt'));
  await writeFile(join(cwd, 'new name.txt'), 'a file that is only renamed\n');
  await rm(join(cwd, 'gone.txt'));
  await writeFile(join(cwd, 'added.txt'), 'new\n');
  const second = await commitAll(cwd, 'second');

  const changes = parseFileChanges(await runGit([...FILE_CHANGES_ARGS, first, second], { cwd }));
  const byPath = Object.fromEntries(changes.map((change) => [change.path, change]));
  assert.deepEqual(Object.keys(byPath).sort(), ['a.txt', 'added.txt', 'blob.bin', 'gone.txt', 'new name.txt']);
  assert.deepEqual(byPath['a.txt'], {
    path: 'a.txt',
    oldPath: null,
    status: 'modified',
    binary: false,
    additions: 2,
    deletions: 1,
    oldMode: '100644',
    newMode: '100755',
  });
  assert.equal(byPath['added.txt']?.status, 'added');
  assert.equal(byPath['added.txt']?.oldMode, null);
  assert.equal(byPath['added.txt']?.additions, 1);
  assert.equal(byPath['blob.bin']?.binary, true);
  assert.equal(byPath['gone.txt']?.status, 'deleted');
  assert.equal(byPath['gone.txt']?.deletions, 2);
  assert.equal(byPath['gone.txt']?.newMode, null);
  assert.equal(byPath['new name.txt']?.status, 'renamed');
  assert.equal(byPath['new name.txt']?.oldPath, 'old name.txt');
  assert.deepEqual(parseFileChanges(await runGit([...FILE_CHANGES_ARGS, first, first], { cwd })), []);
});

test('runGit classifies failures: outside a repository, a bad object, a time-out', async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), 'outrigger-git-'));
  t.after(() => rm(cwd, { recursive: true, force: true }));
  await assert.rejects(runGit(['rev-parse', '--show-toplevel'], { cwd }), (error) => {
    assert.ok(error instanceof GitError);
    assert.equal(error.kind, 'not_a_repository');
    return true;
  });
  await runGit(['init', '-q'], { cwd });
  await assert.rejects(runGit(['cat-file', '-p', 'f'.repeat(40)], { cwd }), GitError);
  // `git init` writes a dozen files: far more than the 1 ms it is given.
  await assert.rejects(runGit(['init', '-q', join(cwd, 'slow')], { cwd, timeoutMs: 1 }), (error) => {
    assert.ok(error instanceof GitError);
    assert.equal(error.kind, 'timed_out');
    return true;
  });
});
