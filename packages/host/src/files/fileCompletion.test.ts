import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runGit } from '../git/runGit.ts';
import { HostError } from '../hostError.ts';
import { completeFiles } from './fileCompletion.ts';

let base: string;
let outside: string;

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'file-completion-')));
  outside = join(base, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'not yours');
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A project with ignored files, a link to a file outside, a link to a directory outside, and a link inside. */
async function project(name: string): Promise<string> {
  const dir = join(base, name);
  await mkdir(join(dir, 'src', 'ui'), { recursive: true });
  await mkdir(join(dir, 'node_modules', 'dep'), { recursive: true });
  await writeFile(join(dir, '.gitignore'), 'node_modules/\n*.log\n');
  await writeFile(join(dir, 'README.md'), '# p');
  await writeFile(join(dir, 'src', 'index.ts'), '');
  await writeFile(join(dir, 'src', 'ui', 'Composer.tsx'), '');
  await writeFile(join(dir, 'debug.log'), '');
  await writeFile(join(dir, 'node_modules', 'dep', 'index.js'), '');
  await symlink(join(outside, 'secret.txt'), join(dir, 'secret-link.txt'));
  await symlink(outside, join(dir, 'outside-dir'));
  await symlink(join(dir, 'README.md'), join(dir, 'readme-link.md'));
  return dir;
}

const paths = (result: { entries: { path: string }[] }) => result.entries.map((entry) => entry.path);
const options = { limit: 50 };

test("a directory its repository ignores (a checkout's .data/workspace) is walked: git would list nothing there", async () => {
  const repository = join(base, 'checkout');
  await mkdir(join(repository, '.data', 'workspace', 'notes'), { recursive: true });
  await writeFile(join(repository, '.gitignore'), '.data/\n');
  await writeFile(join(repository, '.data', 'workspace', 'notes', 'plan.md'), '');
  await runGit(['init', '-q'], { cwd: repository });
  const completion = await completeFiles(join(repository, '.data', 'workspace'), 'pl', options);
  assert.equal(completion.source, 'walk');
  assert.deepEqual(paths(completion), ['notes/plan.md']);
});

test('outside a repository: a walk honouring .gitignore, never through a link, never a path outside', async () => {
  const dir = await project('plain');
  const all = await completeFiles(dir, '', options);
  assert.equal(all.source, 'walk');
  assert.deepEqual(
    paths(all).sort(),
    ['.gitignore', 'README.md', 'readme-link.md', 'src/', 'src/index.ts', 'src/ui/', 'src/ui/Composer.tsx'].sort(),
  );
  assert.deepEqual(paths(await completeFiles(dir, 'comp', options)), ['src/ui/Composer.tsx']);
  assert.deepEqual(paths(await completeFiles(dir, './src/ui', options)), ['src/ui/', 'src/ui/Composer.tsx']);
  assert.deepEqual(paths(await completeFiles(dir, 'secret', options)), [], 'a link out is not offered');
});

test('in a repository: git’s own list (tracked and untracked, excludes honoured), links out left out', async () => {
  const dir = await project('repo');
  await runGit(['init', '-q'], { cwd: dir });
  await runGit(['add', 'README.md', 'src/index.ts', 'secret-link.txt', 'outside-dir'], { cwd: dir });
  const all = await completeFiles(dir, '', options);
  assert.equal(all.source, 'git');
  assert.ok(paths(all).includes('src/ui/Composer.tsx'), 'untracked files are offered');
  assert.ok(!paths(all).some((path) => path.startsWith('node_modules') || path.endsWith('.log')), 'ignored ones not');
  assert.ok(!paths(all).includes('secret-link.txt'), 'a tracked link that resolves outside is not offered');
  assert.ok(!paths(all).includes('outside-dir'), 'nor a tracked link to a directory outside');
  assert.ok(paths(all).includes('readme-link.md'), 'a link that stays inside is offered');
  // Names that start with the query rank first.
  assert.deepEqual(paths(await completeFiles(dir, 'index', options)), ['src/index.ts']);
});

test('attack: traversal in the prefix is a filter, not a path; it never reaches outside the directory', async () => {
  const dir = await project('attack');
  for (const prefix of [
    '../',
    '../outside/secret.txt',
    '/etc/passwd',
    '..\\..',
    '%2e%2e/',
    '\u0000',
    'outside-dir/secret',
  ]) {
    const result = await completeFiles(dir, prefix, options);
    for (const entry of result.entries) {
      assert.ok(!entry.path.includes('..') && !entry.path.startsWith('/'), `${prefix}: ${entry.path}`);
      const real = await realpath(join(dir, entry.path));
      assert.ok(real.startsWith(`${dir}/`), `${prefix}: ${entry.path} resolves to ${real}`);
    }
    assert.ok(!paths(result).some((path) => path.includes('secret')), prefix);
  }
});

test('a session directory that is itself a link is completed at its real path; a missing one is not_found', async () => {
  const dir = await project('target');
  const link = join(base, 'link-to-target');
  await symlink(dir, link);
  assert.deepEqual(paths(await completeFiles(link, 'comp', options)), ['src/ui/Composer.tsx']);
  await assert.rejects(completeFiles(join(base, 'gone'), '', options), (error: unknown) => {
    return error instanceof HostError && error.code === 'not_found';
  });
});

test('the limit and the walk bound say truncated', async () => {
  const dir = join(base, 'many');
  await mkdir(dir);
  for (let index = 0; index < 30; index++) await writeFile(join(dir, `file-${index}.txt`), '');
  const limited = await completeFiles(dir, 'file', { limit: 10 });
  assert.equal(limited.entries.length, 10);
  assert.equal(limited.truncated, true);
  const bounded = await completeFiles(dir, '', { limit: 50, walkBound: 5 });
  assert.equal(bounded.truncated, true);
  assert.ok(bounded.entries.length <= 5);
  assert.equal((await completeFiles(dir, 'file-2', { limit: 50 })).truncated, false);
});
