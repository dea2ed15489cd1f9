import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HostError } from '../hostError.ts';
import { completeDirectory, recentDirectories } from './directoryCompletion.ts';

/*
 * Completion of the working directory (issue 17) and its promise in docs/security.md: only directories
 * under the roots are listed, decided on the resolved real path; a symlink out of a root is neither listed
 * nor followed, `..` does not climb out, and directories above a root show only the way down to it.
 */

let base: string;
let root: string;
before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'outrigger-complete-')));
  root = join(base, 'root');
  for (const dir of [
    'root/app',
    'root/api',
    'root/Apple',
    'root/.hidden',
    'root/docs',
    'outside/secret',
    'root-sibling',
  ])
    await mkdir(join(base, dir), { recursive: true });
  await writeFile(join(root, 'apex.txt'), 'a file');
  await symlink(join(base, 'outside'), join(root, 'ap-escape'));
  await symlink(join(root, 'docs'), join(root, 'ap-docs-link'));
  await symlink(join(base, 'missing'), join(root, 'ap-dangling'));
});
after(() => rm(base, { recursive: true, force: true }));

const names = async (prefix: string, roots = [root]) =>
  (await completeDirectory(prefix, roots, base)).entries.map((entry) => entry.name);

function refusedWith(expected: string) {
  return (error: unknown) => {
    assert.ok(error instanceof HostError, String(error));
    assert.equal(error.code, expected);
    return true;
  };
}

test('lists the subdirectories a typed name starts with (case-insensitive), as paths to continue typing', async () => {
  const completion = await completeDirectory(`${root}/ap`, [root], base);
  assert.equal(completion.directory, root);
  assert.deepEqual(
    completion.entries.map((entry) => entry.path),
    [`${root}/Apple/`, `${root}/ap-docs-link/`, `${root}/api/`, `${root}/app/`],
    'files, dangling links and links out of the root are not offered; a link inside the root is',
  );
  assert.deepEqual(await names(`${root}/`), ['Apple', 'ap-docs-link', 'api', 'app', 'docs']);
  assert.deepEqual(await names(`${root}/.`), ['.hidden'], 'hidden directories only when asked for');
  assert.deepEqual(await names('~/root/do'), ['docs'], '~ is the home directory');
  assert.deepEqual(
    await names('~/', [base]),
    ['outside', 'root', 'root-sibling'],
    '~/ lists inside the home directory',
  );
  assert.deepEqual(await names('~/root/', [root]), ['Apple', 'ap-docs-link', 'api', 'app', 'docs']);
});

test('attack: a symlink out of the root is not followed, .. does not climb out, a sibling prefix is outside', async () => {
  await assert.rejects(completeDirectory(`${root}/ap-escape/`, [root], base), refusedWith('forbidden'));
  await assert.rejects(completeDirectory(`${root}/ap-escape/se`, [root], base), refusedWith('forbidden'));
  await assert.rejects(completeDirectory(`${root}/../outside/`, [root], base), refusedWith('forbidden'));
  await assert.rejects(completeDirectory(`${root}/app/../../outside/`, [root], base), refusedWith('forbidden'));
  await assert.rejects(completeDirectory(`${base}/root-sibling/`, [root], base), refusedWith('forbidden'));
  await assert.rejects(completeDirectory('/etc/', [root], base), refusedWith('forbidden'));
  await assert.rejects(completeDirectory(`${root}/nope/`, [root], base), refusedWith('not_found'));
  await assert.rejects(completeDirectory('relative/', [root], base), refusedWith('validation_failed'));
  await assert.rejects(completeDirectory(`${root}/\u0000/`, [root], base), refusedWith('not_found'));
});

test('above a root only the way down to it is listed; no roots at all allows nothing', async () => {
  assert.deepEqual(await names(`${base}/`), ['root'], 'not outside/ nor root-sibling/');
  assert.deepEqual(await names(`${base}/r`), ['root']);
  await assert.rejects(completeDirectory(`${root}/`, [], base), refusedWith('forbidden'));
  await assert.rejects(completeDirectory(`${root}/`, [join(base, 'no-such-root')], base), refusedWith('forbidden'));
});

test('recent directories: those that still exist and are allowed, in the store’s order', async () => {
  const store = {
    recentCwds: async () => [
      { cwd: join(root, 'app'), lastUsedAt: 3 },
      { cwd: join(base, 'gone'), lastUsedAt: 2 },
      { cwd: join(base, 'outside'), lastUsedAt: 1 },
    ],
  };
  assert.deepEqual(
    (await recentDirectories(store, [root])).map((entry) => entry.path),
    [join(root, 'app')],
  );
  assert.deepEqual(
    (await recentDirectories(store, [])).map((entry) => entry.path),
    [join(root, 'app'), join(base, 'outside')],
  );
});
