import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { GitError, runGit } from '../git/runGit.ts';
import { CheckpointConflictError, ShadowRepository, UnknownCheckpointError } from './shadowRepository.ts';

const USER_IDENTITY = {
  GIT_AUTHOR_NAME: 'u',
  GIT_AUTHOR_EMAIL: 'u@u',
  GIT_COMMITTER_NAME: 'u',
  GIT_COMMITTER_EMAIL: 'u@u',
};

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-checkpoints-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A work tree holding `files`, and a shadow repository for it in a data directory beside it. */
async function setUp(t: TestContext, files: Record<string, string | Buffer> = {}) {
  const root = await tempDir(t);
  const work = join(root, 'work');
  await mkdir(work);
  await writeFiles(work, files);
  const gitDir = join(root, 'data', 'checkpoints', 'session.git');
  const repository = await ShadowRepository.open({ gitDir, workTree: work });
  return { root, work, gitDir, repository };
}

async function writeFiles(dir: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** Every path under `root` with what it is: a directory, a symlink and its target, a file, its x bit and its bytes' hash. */
async function listing(root: string, skip: ReadonlySet<string> = new Set()): Promise<string[]> {
  const entries: string[] = [];
  const walk = async (relativeDir: string): Promise<void> => {
    for (const entry of await readdir(join(root, relativeDir), { withFileTypes: true })) {
      const path = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      if (skip.has(path)) continue;
      const full = join(root, path);
      if (entry.isSymbolicLink()) {
        entries.push(`${path} -> ${await readlink(full)}`);
      } else if (entry.isDirectory()) {
        entries.push(`${path}/`);
        await walk(path);
      } else {
        const executable = ((await lstat(full)).mode & 0o111) !== 0 ? 'x' : '-';
        entries.push(
          `${path} ${executable} ${createHash('sha256')
            .update(await readFile(full))
            .digest('hex')}`,
        );
      }
    }
  };
  await walk('');
  return entries.sort();
}

async function shadowGit(gitDir: string, args: readonly string[]): Promise<string> {
  return (await runGit(args, { cwd: gitDir, env: { GIT_DIR: gitDir } })).stdout.toString('utf8');
}

async function pathsIn(gitDir: string, commit: string): Promise<string[]> {
  return (await shadowGit(gitDir, ['ls-tree', '-r', '-z', '--name-only', commit])).split('\0').filter(Boolean).sort();
}

async function objectCount(gitDir: string): Promise<number> {
  const entries = await readdir(join(gitDir, 'objects'), { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

const SAFETY = 'refs/outrigger/safety/test';

test('a directory that is no git repository: a snapshot names a commit of its files; the shadow repository is private', async (t) => {
  const { root, work, gitDir, repository } = await setUp(t, { 'a.txt': 'a\n', 'dir/b.txt': 'b\n' });
  const first = await repository.snapshot('refs/outrigger/turns/one/start');
  assert.match(first.commit, /^[0-9a-f]{40}$/);
  assert.equal(first.created, true);
  assert.equal(first.ref, 'refs/outrigger/turns/one/start');
  assert.deepEqual(await pathsIn(gitDir, first.commit), ['a.txt', 'dir/b.txt']);
  assert.equal(await repository.commitOf('refs/outrigger/turns/one/start'), first.commit);
  assert.equal(await repository.commitOf('refs/outrigger/turns/none/start'), undefined);

  await writeFile(join(work, 'a.txt'), 'a, edited\n');
  const second = await repository.snapshot('refs/outrigger/turns/one/end');
  assert.equal(second.created, true);
  assert.equal((await shadowGit(gitDir, ['rev-parse', `${second.commit}^`])).trim(), first.commit, 'chained');
  assert.deepEqual(await repository.list(), [
    { ...first, created: true },
    { ...second, created: true },
  ]);
  assert.deepEqual(
    (await repository.list('refs/outrigger/turns/one/end')).map((checkpoint) => checkpoint.ref),
    ['refs/outrigger/turns/one/end'],
  );

  // Reopened (a host restart), it compares with the same latest snapshot.
  const reopened = await ShadowRepository.open({ gitDir, workTree: work });
  assert.equal((await reopened.snapshot('refs/outrigger/again')).commit, second.commit);

  const loose = await readdir(join(root, 'data'), { recursive: true, withFileTypes: true });
  for (const entry of [...loose, { parentPath: root, name: 'data' }]) {
    const mode = (await lstat(join(entry.parentPath, entry.name))).mode & 0o777;
    assert.equal(mode & 0o077, 0, `${join(entry.parentPath, entry.name)} is ${mode.toString(8)}`);
  }
  assert.equal((await lstat(gitDir)).mode & 0o777, 0o700);
});

test('a snapshot of an unchanged tree writes no object and reuses the latest commit; so does a diff of the working state', async (t) => {
  const { work, gitDir, repository } = await setUp(t, { 'a.txt': 'a\n', 'deep/er/b.txt': 'b\n' });
  const first = await repository.snapshot('refs/outrigger/a');
  const objects = await objectCount(gitDir);
  const again = await repository.snapshot('refs/outrigger/b');
  assert.deepEqual(again, {
    ref: 'refs/outrigger/b',
    commit: first.commit,
    createdAt: first.createdAt,
    created: false,
  });
  assert.deepEqual(await repository.diff(first.commit, 'working'), []);
  assert.equal(await objectCount(gitDir), objects, 'no new object');
  assert.equal(await repository.commitOf('refs/outrigger/b'), first.commit);

  await writeFile(join(work, 'deep/er/b.txt'), 'b, edited\n');
  const changed = await repository.snapshot('refs/outrigger/c');
  assert.equal(changed.created, true);
  // One blob, a tree for each of the three directories on its path, one commit.
  assert.equal(await objectCount(gitDir), objects + 5);
});

test('ignored files are never in a snapshot and never touched by a restore, even where the target has that file', async (t) => {
  const { work, gitDir, repository } = await setUp(t, {
    'keep.txt': 'keep\n',
    'secret.txt': 'in the first snapshot\n',
  });
  const before = await repository.snapshot('refs/outrigger/before');
  assert.deepEqual(await pathsIn(gitDir, before.commit), ['keep.txt', 'secret.txt']);

  await writeFiles(work, {
    '.gitignore': 'secret.txt\nbuild/\n*.log\n',
    'secret.txt': 'ignored now, and edited\n',
    'debug.log': 'log\n',
    'build/out.bin': Buffer.from([0, 1, 2]),
    'sub/.gitignore': 'local-only\n',
    'sub/local-only': 'ignored by a nested .gitignore\n',
  });
  const after = await repository.snapshot('refs/outrigger/after');
  assert.deepEqual(
    await pathsIn(gitDir, after.commit),
    ['.gitignore', 'keep.txt', 'sub/.gitignore'],
    'a path ignored since it was recorded leaves the snapshots too',
  );

  const ignoredBefore = await listing(work, new Set(['.gitignore', 'keep.txt', 'sub']));
  const plan = await repository.restorePlan(before.commit);
  assert.deepEqual(
    plan.map((file) => `${file.status} ${file.path}`),
    ['deleted .gitignore', 'deleted sub/.gitignore'],
    'secret.txt is in the target but ignored here: not part of the plan',
  );
  const restored = await repository.restore(before.commit, SAFETY);
  assert.deepEqual(restored.files, plan);
  assert.equal(await readFile(join(work, 'secret.txt'), 'utf8'), 'ignored now, and edited\n');
  assert.deepEqual(await listing(work, new Set(['.gitignore', 'keep.txt', 'sub'])), ignoredBefore);
  assert.equal(await readFile(join(work, 'sub/local-only'), 'utf8'), 'ignored by a nested .gitignore\n');
});

test('edits, creations, deletions, a binary file, an executable bit, a nested new directory and symlinks: restore gives the tree back byte for byte, and its safety snapshot undoes it', async (t) => {
  const { work, repository } = await setUp(t, {
    'text.txt': 'one\ntwo\n',
    // A CRLF file under `text=auto`: a shadow that normalized line endings would give it back with LF.
    '.gitattributes': '* text=auto\n',
    'crlf.txt': 'line one\r\nline two\r\n',
    'blob.bin': Buffer.from([0, 255, 1, 254]),
    'script.sh': '#!/bin/sh\necho hi\n',
    'gone.txt': 'about to be deleted\n',
    'dir/keep.txt': 'kept\n',
  });
  await symlink('text.txt', join(work, 'link'));
  const start = await repository.snapshot('refs/outrigger/turns/t/start');
  const atStart = await listing(work);

  await writeFiles(work, {
    'text.txt': 'one\nTWO\nthree\n',
    'crlf.txt': 'line one\r\nline 2\r\n',
    'new.txt': 'created\n',
    'blob.bin': Buffer.from([0, 1, 0, 1, 0]),
    'brand/new/nested/file.txt': 'deep\n',
  });
  await rm(join(work, 'gone.txt'));
  await chmod(join(work, 'script.sh'), 0o755);
  await rm(join(work, 'link'));
  await symlink('new.txt', join(work, 'link'));
  await symlink('dir', join(work, 'dir-link'));
  const end = await repository.snapshot('refs/outrigger/turns/t/end');
  const atEnd = await listing(work);
  assert.notDeepEqual(atEnd, atStart);

  const plan = await repository.restorePlan(start.commit);
  assert.deepEqual(await listing(work), atEnd, 'a plan changes nothing');
  assert.deepEqual(plan.map((file) => `${file.status} ${file.path}`).sort(), [
    'added gone.txt',
    'deleted brand/new/nested/file.txt',
    'deleted dir-link',
    'deleted new.txt',
    'modified blob.bin',
    'modified crlf.txt',
    'modified link',
    'modified script.sh',
    'modified text.txt',
  ]);

  const restored = await repository.restore(start.commit, SAFETY);
  assert.deepEqual(restored.files, plan, 'the plan is what the restore did');
  assert.equal(restored.safety.commit, end.commit, 'nothing changed since the end snapshot: the safety reuses it');
  assert.deepEqual(await listing(work), atStart, 'byte for byte, modes and links, and no brand/ left');
  assert.equal(await readFile(join(work, 'crlf.txt'), 'utf8'), 'line one\r\nline two\r\n');
  const next = await repository.snapshot('refs/outrigger/after-restore');
  assert.deepEqual(
    [next.commit, next.created],
    [start.commit, false],
    'the next snapshot compares with the restored state',
  );

  const undone = await repository.restore(restored.safety.commit, 'refs/outrigger/safety/undo');
  assert.equal(undone.files.length, plan.length);
  assert.deepEqual(await listing(work), atEnd, 'restoring the safety snapshot undoes the restore');
});

test('a user repository is left byte-identical: its .git, index, stash, HEAD and status', async (t) => {
  const { work, gitDir, repository } = await setUp(t);
  const user = (args: readonly string[]) => runGit(args, { cwd: work, env: USER_IDENTITY });
  await user(['init', '-q']);
  await writeFiles(work, { 'a.txt': 'a\n', 'b.txt': '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n', 'stashed.txt': 's\n' });
  await user(['add', '-A']);
  await user(['commit', '-q', '-m', 'first']);
  await writeFile(join(work, 'stashed.txt'), 'stashed change\n');
  await user(['stash', '-q']);
  await writeFiles(work, { 'a.txt': 'a, staged\n', 'untracked.txt': 'u\n' });
  await user(['add', 'a.txt']);
  const userState = async () => ({
    gitDir: await listing(join(work, '.git')),
    index: createHash('sha256')
      .update(await readFile(join(work, '.git/index')))
      .digest('hex'),
    head: (await user(['rev-parse', 'HEAD'])).stdout.toString(),
    status: (await user(['status', '--porcelain'])).stdout.toString(),
    stash: (await user(['stash', 'list'])).stdout.toString(),
  });
  const before = await userState();
  assert.match(before.stash, /stash@\{0\}/);

  const start = await repository.snapshot('refs/outrigger/start');
  assert.ok(!(await pathsIn(gitDir, start.commit)).some((path) => path.startsWith('.git')), 'no .git in a snapshot');
  await writeFiles(work, { 'b.txt': '1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\nTWELVE\n', 'c.txt': 'c\n' });
  const end = await repository.snapshot('refs/outrigger/end');
  const atEnd = await listing(work, new Set(['.git']));
  const rewind = await repository.restore(start.commit, SAFETY);
  await repository.restore(rewind.safety.commit, 'refs/outrigger/safety/back');
  await repository.revertFile(start.commit, 'c.txt', 'refs/outrigger/safety/file');
  await repository.revertHunk(start.commit, end.commit, 'b.txt', 0, 'refs/outrigger/safety/hunk');
  assert.equal(await readFile(join(work, 'b.txt'), 'utf8'), '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nTWELVE\n');
  await repository.restore(end.commit, 'refs/outrigger/safety/end');
  assert.deepEqual(await listing(work, new Set(['.git'])), atEnd);
  await writeFile(join(work, 'b.txt'), '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n');
  await rm(join(work, 'c.txt'));

  assert.deepEqual(await userState(), before);
});

test('revertFile: a renamed file gets its old name and content back and loses the new name; other changes stay', async (t) => {
  const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
  const { work, repository } = await setUp(t, { 'old.txt': `${lines.join('\n')}\n`, 'other.txt': 'other\n' });
  const start = await repository.snapshot('refs/outrigger/start');
  await rm(join(work, 'old.txt'));
  await writeFiles(work, {
    'new.txt': `${lines.join('\n').replace('line 6', 'line six')}\n`,
    'other.txt': 'other, edited\n',
    'added.txt': 'added\n',
  });
  const end = await repository.snapshot('refs/outrigger/end');
  const renamed = (await repository.diff(start.commit, end.commit)).find((file) => file.status === 'renamed');
  assert.deepEqual([renamed?.oldPath, renamed?.path], ['old.txt', 'new.txt']);
  const patch = await repository.filePatch(start.commit, end.commit, 'old.txt');
  assert.equal(patch?.file.path, 'new.txt', 'a patch is found by the old name too');
  assert.deepEqual(
    patch?.hunks[0]?.lines.filter((line) => /^[-+]/.test(line)),
    ['-line 6', '+line six'],
  );

  for (const name of ['new.txt', 'old.txt']) {
    const reverted = await repository.revertFile(start.commit, name, `refs/outrigger/safety/${name}`);
    assert.deepEqual(
      reverted.files.map((file) => [file.status, file.oldPath, file.path]),
      [['renamed', 'new.txt', 'old.txt']],
    );
    assert.equal(await readFile(join(work, 'old.txt'), 'utf8'), `${lines.join('\n')}\n`);
    await assert.rejects(readFile(join(work, 'new.txt')), { code: 'ENOENT' });
    assert.equal(await readFile(join(work, 'other.txt'), 'utf8'), 'other, edited\n');
    await repository.restore(reverted.safety.commit, `refs/outrigger/safety/undo-${name}`);
    assert.equal(await readFile(join(work, 'new.txt'), 'utf8'), `${lines.join('\n').replace('line 6', 'line six')}\n`);
  }

  const deleted = await repository.revertFile(start.commit, 'added.txt', 'refs/outrigger/safety/added');
  assert.deepEqual(
    deleted.files.map((file) => `${file.status} ${file.path}`),
    ['deleted added.txt'],
  );
  await assert.rejects(readFile(join(work, 'added.txt')), { code: 'ENOENT' });
});

const THIRTY_LINES = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
const withLines = (changes: Record<number, string>) =>
  `${THIRTY_LINES.map((line, i) => changes[i + 1] ?? line).join('\n')}\n`;

test('revertHunk undoes the middle of three hunks and nothing else, against a checkpoint or the working state', async (t) => {
  const { work, repository } = await setUp(t, { 'f.txt': withLines({}) });
  const start = await repository.snapshot('refs/outrigger/start');
  const edited = withLines({ 2: 'TWO', 15: 'FIFTEEN', 28: 'TWENTY-EIGHT' });
  await writeFile(join(work, 'f.txt'), edited);
  const end = await repository.snapshot('refs/outrigger/end');
  const patch = await repository.filePatch(start.commit, end.commit, 'f.txt');
  assert.equal(patch?.hunks.length, 3);
  assert.ok(patch.hunks[1]!.lines.includes('+FIFTEEN'));

  const reverted = await repository.revertHunk(start.commit, end.commit, 'f.txt', 1, SAFETY);
  assert.equal(await readFile(join(work, 'f.txt'), 'utf8'), withLines({ 2: 'TWO', 28: 'TWENTY-EIGHT' }));
  assert.equal(reverted.safety.commit, end.commit);
  assert.deepEqual(
    reverted.files.map((file) => [file.path, file.additions, file.deletions]),
    [['f.txt', 1, 1]],
  );

  await repository.revertHunk(start.commit, 'working', 'f.txt', 0, 'refs/outrigger/safety/working');
  assert.equal(await readFile(join(work, 'f.txt'), 'utf8'), withLines({ 28: 'TWENTY-EIGHT' }));
});

test('a hunk that no longer applies is a CheckpointConflictError and changes nothing; a binary file has no hunks', async (t) => {
  const { work, repository } = await setUp(t, { 'f.txt': withLines({}), 'blob.bin': Buffer.from([0, 1]) });
  const start = await repository.snapshot('refs/outrigger/start');
  await writeFiles(work, { 'f.txt': withLines({ 2: 'TWO', 15: 'FIFTEEN', 28: 'X' }), 'blob.bin': Buffer.from([0, 2]) });
  const end = await repository.snapshot('refs/outrigger/end');
  const changedSince = withLines({ 2: 'TWO', 15: 'fifteen, edited again', 28: 'X' });
  await writeFile(join(work, 'f.txt'), changedSince);
  const refs = await repository.list();

  await assert.rejects(repository.revertHunk(start.commit, end.commit, 'f.txt', 1, SAFETY), (error) => {
    assert.ok(error instanceof CheckpointConflictError);
    assert.match(error.message, /no longer applies to f\.txt/);
    return true;
  });
  assert.equal(await readFile(join(work, 'f.txt'), 'utf8'), changedSince);
  assert.deepEqual(await repository.list(), refs, 'no safety snapshot for a revert that did not happen');

  await assert.rejects(repository.revertHunk(start.commit, end.commit, 'blob.bin', 0, SAFETY), {
    name: 'RangeError',
    message: /blob\.bin is binary.*revert the whole file/,
  });
  const file = await repository.revertFile(start.commit, 'blob.bin', SAFETY);
  assert.deepEqual(
    file.files.map((change) => change.path),
    ['blob.bin'],
  );
  assert.deepEqual(await readFile(join(work, 'blob.bin')), Buffer.from([0, 1]));
});

test('refs, commits, paths and hunk indexes that are not what they must be are refused, before git changes anything', async (t) => {
  const { work, repository } = await setUp(t, { 'a.txt': 'a\n' });
  const start = await repository.snapshot('refs/outrigger/start');
  await writeFile(join(work, 'a.txt'), 'a, edited\n');
  for (const ref of [
    'refs/heads/main',
    'refs/outrigger/',
    'refs/outrigger/a..b',
    'refs/outrigger/x.lock',
    'refs/outrigger/with space',
    'refs/outrigger/star*',
    '--upload-pack=touch /tmp/x',
    'HEAD',
  ]) {
    await assert.rejects(repository.snapshot(ref), RangeError, ref);
    await assert.rejects(repository.commitOf(ref), RangeError, ref);
  }
  await assert.rejects(repository.restore(start.commit, 'refs/heads/x'), RangeError);
  for (const commit of ['HEAD', 'HEAD~1', '--output=/tmp/x', start.commit.toUpperCase(), start.commit.slice(0, 12)]) {
    await assert.rejects(repository.diff(commit, 'working'), RangeError, commit);
    await assert.rejects(repository.restore(commit, SAFETY), RangeError, commit);
  }
  await assert.rejects(repository.diff(start.commit, 'f'.repeat(40)), (error) => {
    assert.ok(error instanceof UnknownCheckpointError && error instanceof RangeError);
    assert.match(error.message, /no checkpoint f{40}/);
    return true;
  });
  for (const path of ['../outside.txt', '/etc/passwd', 'a/../../x', './a.txt', 'a//b', '.git/config', 'C:\\x']) {
    await assert.rejects(repository.filePatch(start.commit, 'working', path), RangeError, path);
    await assert.rejects(repository.revertFile(start.commit, path, SAFETY), RangeError, path);
  }
  await assert.rejects(repository.filePatch(start.commit, 'working', ''), TypeError);
  for (const index of [-1, 1.5, Number.NaN, 1]) {
    await assert.rejects(repository.revertHunk(start.commit, 'working', 'a.txt', index, SAFETY), RangeError);
  }
  await assert.rejects(repository.list('refs/outrigger/*'), RangeError);
  assert.deepEqual(
    (await repository.list()).map((checkpoint) => checkpoint.ref),
    ['refs/outrigger/start'],
  );
  assert.equal(await readFile(join(work, 'a.txt'), 'utf8'), 'a, edited\n');
});

test('a damaged shadow repository fails with GitError, not a crash: a truncated object, a deleted HEAD', async (t) => {
  const { work, gitDir, repository } = await setUp(t, { 'a.txt': 'a\n' });
  const start = await repository.snapshot('refs/outrigger/start');
  const object = join(gitDir, 'objects', start.commit.slice(0, 2), start.commit.slice(2));
  await chmod(object, 0o600);
  await writeFile(object, '');
  await writeFile(join(work, 'a.txt'), 'a, edited\n');
  await assert.rejects(repository.snapshot('refs/outrigger/next'), GitError);
  await assert.rejects(repository.diff(start.commit, 'working'), { name: 'GitError', kind: 'corrupt' });

  await rm(join(gitDir, 'HEAD'));
  await assert.rejects(repository.list(), (error) => {
    assert.ok(error instanceof GitError);
    assert.equal(error.kind, 'not_a_repository');
    return true;
  });
});

test('calls that overlap (a diff of the working state while a snapshot runs) take turns on the index', async (t) => {
  const files = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`d${i % 10}/f${i}.txt`, `${i}\n`]));
  const { work, repository } = await setUp(t, files);
  const start = await repository.snapshot('refs/outrigger/start');
  const calls: Promise<unknown>[] = [];
  for (let round = 0; round < 8; round += 1) {
    await writeFile(join(work, `d0/f${round}.txt`), `edited in round ${round}\n`);
    calls.push(
      repository.snapshot(`refs/outrigger/round/${round}`),
      repository.diff(start.commit, 'working'),
      repository.filePatch(start.commit, 'working', 'd0/f0.txt'),
      repository.restorePlan(start.commit),
    );
  }
  const outcomes = await Promise.allSettled(calls);
  assert.deepEqual(
    outcomes.filter((outcome) => outcome.status === 'rejected'),
    [],
  );
  assert.equal((await repository.diff(start.commit, 'working')).length, 8);
});

test('nested repositories, a data directory inside the work tree, a work tree that is gone', async (t) => {
  const root = await tempDir(t);
  const work = join(root, 'home');
  await writeFiles(work, { 'top.txt': 'top\n', 'withCommit/f.txt': 'f\n', 'noCommit/g.txt': 'g\n' });
  const nested = (dir: string, args: readonly string[]) => runGit(args, { cwd: join(work, dir), env: USER_IDENTITY });
  await nested('withCommit', ['init', '-q']);
  await nested('withCommit', ['add', '-A']);
  await nested('withCommit', ['commit', '-q', '-m', 'nested']);
  await nested('noCommit', ['init', '-q']);
  // A session in the home directory, the host's data directory in it too.
  const gitDir = join(work, '.local', 'outrigger data', 'session.git');
  const repository = await ShadowRepository.open({ gitDir, workTree: work });
  const snapshot = await repository.snapshot('refs/outrigger/start');
  assert.deepEqual(
    await pathsIn(gitDir, snapshot.commit),
    ['top.txt', 'withCommit'],
    'a repository with a commit as its gitlink, one without left out, the shadow itself never',
  );
  assert.match(await shadowGit(gitDir, ['ls-tree', snapshot.commit, 'withCommit']), /^160000 commit /);

  const gone = join(root, 'gone');
  await mkdir(gone);
  const orphan = await ShadowRepository.open({ gitDir: join(root, 'gone.git'), workTree: gone });
  await rm(gone, { recursive: true });
  await assert.rejects(orphan.snapshot('refs/outrigger/x'), (error) => {
    assert.ok(error instanceof GitError);
    assert.notEqual(error.kind, 'not_installed');
    return true;
  });
});
