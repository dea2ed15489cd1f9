import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HostError } from '../hostError.ts';
import { expandHome, resolveSessionCwd } from './cwdPolicy.ts';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-cwd-'));
  await mkdir(join(root, 'allowed', 'project'), { recursive: true });
  await mkdir(join(root, 'allowed-not'), { recursive: true });
  await mkdir(join(root, 'elsewhere'));
  await writeFile(join(root, 'allowed', 'file.txt'), 'x');
  await symlink(join(root, 'elsewhere'), join(root, 'allowed', 'escape'));
});
after(() => rm(root, { recursive: true, force: true }));

function code(error: unknown): string {
  assert.ok(error instanceof HostError, String(error));
  return error.code;
}

test('any existing directory when no roots are configured', async () => {
  assert.equal(await resolveSessionCwd(join(root, 'elsewhere'), []), join(root, 'elsewhere'));
});

test('missing, relative or non-directory paths are validation failures that name the field and repeat the path', async () => {
  const cases = [
    [join(root, 'missing'), `Working directory: ${join(root, 'missing')} does not exist`],
    ['relative/dir', 'Working directory: relative/dir is not an absolute path: start it with / or ~'],
    [join(root, 'allowed', 'file.txt'), `Working directory: ${join(root, 'allowed', 'file.txt')} is not a directory`],
  ] as const;
  for (const [cwd, message] of cases) {
    await assert.rejects(resolveSessionCwd(cwd, []), (error: unknown) => {
      assert.equal(code(error), 'validation_failed');
      assert.equal((error as HostError).message, message);
      assert.equal((error as HostError).details?.[0]?.path, 'cwd');
      return true;
    });
  }
});

test('~ and ~/… are the home directory, for the API as for the UI; ~other is not expanded', async () => {
  assert.equal(expandHome('~', '/home/u'), '/home/u');
  assert.equal(expandHome('~/code/x', '/home/u'), '/home/u/code/x');
  assert.equal(expandHome('~other/x', '/home/u'), '~other/x');
  assert.equal(expandHome('/abs/~/x', '/home/u'), '/abs/~/x');
  assert.equal(await resolveSessionCwd('~/allowed/project', [], root), join(root, 'allowed', 'project'));
  assert.equal(await resolveSessionCwd('~', [join(root, 'allowed')], join(root, 'allowed')), join(root, 'allowed'));
  await assert.rejects(resolveSessionCwd('~/missing', [], root), /Working directory: .*\/missing does not exist/);
});

test('under an allow-root (itself included); outside, a sibling prefix or a symlink out is forbidden', async () => {
  const roots = [join(root, 'allowed')];
  assert.equal(await resolveSessionCwd(join(root, 'allowed', 'project'), roots), join(root, 'allowed', 'project'));
  assert.equal(await resolveSessionCwd(join(root, 'allowed'), roots), join(root, 'allowed'));
  for (const cwd of [join(root, 'elsewhere'), join(root, 'allowed-not'), join(root, 'allowed', 'escape')]) {
    await assert.rejects(resolveSessionCwd(cwd, roots), (error: unknown) => {
      assert.equal(code(error), 'forbidden');
      assert.match((error as HostError).message, /^Working directory: .* is outside the directories this host may use/);
      return true;
    });
  }
});
