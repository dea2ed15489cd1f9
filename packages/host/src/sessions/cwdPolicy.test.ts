import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HostError } from '../hostError.ts';
import { resolveSessionCwd } from './cwdPolicy.ts';

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

test('missing, relative or non-directory paths are validation failures naming cwd', async () => {
  for (const cwd of [join(root, 'missing'), 'relative/dir', join(root, 'allowed', 'file.txt')]) {
    await assert.rejects(resolveSessionCwd(cwd, []), (error: unknown) => {
      assert.equal(code(error), 'validation_failed');
      assert.equal((error as HostError).details?.[0]?.path, 'cwd');
      return true;
    });
  }
});

test('under an allow-root (itself included); outside, a sibling prefix or a symlink out is forbidden', async () => {
  const roots = [join(root, 'allowed')];
  assert.equal(await resolveSessionCwd(join(root, 'allowed', 'project'), roots), join(root, 'allowed', 'project'));
  assert.equal(await resolveSessionCwd(join(root, 'allowed'), roots), join(root, 'allowed'));
  for (const cwd of [join(root, 'elsewhere'), join(root, 'allowed-not'), join(root, 'allowed', 'escape')]) {
    await assert.rejects(resolveSessionCwd(cwd, roots), (error: unknown) => code(error) === 'forbidden');
  }
});
