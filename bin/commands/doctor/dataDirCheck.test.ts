import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CheckResult } from './checkResult.ts';
import { checkDataDir, formatBytes, MIN_FREE_BYTES } from './dataDirCheck.ts';

const posix = process.platform !== 'win32';
const asRoot = process.getuid?.() === 0;
let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-doctor-data-'));
});
after(async () => {
  await chmod(root, 0o700).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

function byName(results: readonly CheckResult[]): Record<string, CheckResult> {
  return Object.fromEntries(results.map((result) => [result.name, result]));
}

async function freshDir(name: string, mode: number): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  await chmod(dir, mode);
  return dir;
}

test('a 0700 directory with room passes all four, and the probe file is gone afterwards', async () => {
  const dir = await freshDir('healthy', 0o700);
  const results = await checkDataDir({ dir });
  assert.deepEqual(
    results.map((result) => [result.name, result.status]),
    [
      ['data dir', 'ok'],
      ['data mode', 'ok'],
      ['data write', 'ok'],
      ['free space', 'ok'],
    ],
  );
  if (posix) assert.equal(byName(results)['data mode']?.detail, '0700, owner only');
  assert.deepEqual(await readdir(dir), []);
});

test('a 0755 directory fails the mode check with the mode and the fix', { skip: !posix }, async () => {
  const dir = await freshDir('open', 0o755);
  const mode = byName(await checkDataDir({ dir }))['data mode'];
  assert.equal(mode?.status, 'FAIL');
  assert.match(mode?.detail ?? '', new RegExp(`^0755: other users .*chmod 700 ${dir}`));
});

test('on Windows the POSIX bits are not judged', async () => {
  const dir = await freshDir('windows', 0o755);
  assert.equal(byName(await checkDataDir({ dir, platform: 'win32' }))['data mode']?.status, 'ok');
});

test('a read-only directory fails the write check', { skip: !posix || asRoot }, async () => {
  const dir = await freshDir('readonly', 0o500);
  const write = byName(await checkDataDir({ dir }))['data write'];
  assert.equal(write?.status, 'FAIL');
  assert.match(write?.detail ?? '', /cannot create a file in .*EACCES/);
});

test('a missing directory is fine when it can be made, and is not made', async () => {
  const dir = join(root, 'missing', 'deeper');
  const results = await checkDataDir({ dir });
  assert.deepEqual(
    results.map((result) => [result.name, result.status]),
    [
      ['data dir', 'ok'],
      ['free space', 'ok'],
    ],
  );
  assert.match(results[0]?.detail ?? '', /does not exist yet; outrigger serve creates it/);
  assert.match(results[1]?.detail ?? '', new RegExp(`free at ${root}$`), 'measured where it would be made');
  assert.deepEqual(await readdir(root).then((names) => names.includes('missing')), false);
});

test('a missing directory under one that cannot be written fails', { skip: !posix || asRoot }, async () => {
  const locked = await freshDir('locked', 0o500);
  const result = (await checkDataDir({ dir: join(locked, 'data') }))[0];
  assert.equal(result?.status, 'FAIL');
  assert.match(result?.detail ?? '', new RegExp(`cannot be created: ${locked} is not writable`));
});

test('a file where the directory should be fails', async () => {
  const file = join(root, 'a-file');
  await writeFile(file, '');
  const results = await checkDataDir({ dir: file });
  assert.deepEqual(results, [{ name: 'data dir', status: 'FAIL', detail: `${file} is not a directory` }]);
});

test('too little free space fails and says how much there is', async () => {
  const dir = await freshDir('full', 0o700);
  const space = byName(await checkDataDir({ dir, freeBytes: async () => 12 * 1024 * 1024 }))['free space'];
  assert.equal(space?.status, 'FAIL');
  assert.equal(space?.detail, `12.0 MB free at ${dir}, below the ${formatBytes(MIN_FREE_BYTES)} needed`);
});

test('sizes read as people read them', () => {
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(100 * 1024 * 1024), '100.0 MB');
  assert.equal(formatBytes(78.1 * 1024 ** 3), '78.1 GB');
});
