import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isDirectory, isInside, realRoots } from './pathContainment.ts';

test('inside is the root or below it; a sibling sharing its prefix, a parent and a climb out are not', () => {
  assert.equal(isInside('/a/b', '/a/b'), true);
  assert.equal(isInside('/a/b/c/d', '/a/b'), true);
  assert.equal(isInside('/a/bc', '/a/b'), false);
  assert.equal(isInside('/a', '/a/b'), false);
  assert.equal(isInside('/a/b/../c', '/a/b'), false);
  assert.equal(isInside('/anything', '/'), true);
});

test('roots resolve through links, a missing root allows nothing; a directory is one after links', async (t) => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'outrigger-paths-')));
  t.after(() => rm(base, { recursive: true, force: true }));
  await mkdir(join(base, 'real'));
  await symlink(join(base, 'real'), join(base, 'link'));
  await writeFile(join(base, 'file'), 'x');
  assert.deepEqual(await realRoots([join(base, 'link'), join(base, 'missing')]), [join(base, 'real')]);
  assert.equal(await isDirectory(join(base, 'link')), true);
  assert.equal(await isDirectory(join(base, 'file')), false);
  assert.equal(await isDirectory(join(base, 'missing')), false);
});
