import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadOrCreateToken, rotateToken, watchToken } from './tokenFile.ts';

test('the token is made once into a 0600 file and kept across starts', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-token-'));
  try {
    const path = join(dir, 'data', 'token');
    const first = await loadOrCreateToken(path);
    assert.equal(first.created, true);
    assert.match(first.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const second = await loadOrCreateToken(path);
    assert.deepEqual(second, { token: first.token, created: false });
    await chmod(path, 0o644);
    await loadOrCreateToken(path);
    assert.equal((await stat(path)).mode & 0o777, 0o600, 'a widened token file is narrowed again');
    await writeFile(path, 'short\n');
    await assert.rejects(loadOrCreateToken(path), /is not a token; delete it/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** Polls `check` until it holds; fails with `what` after `ms`. */
async function eventually(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('rotateToken replaces the token with a fresh 0600 file and leaves no temporary file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-token-'));
  try {
    const path = join(dir, 'token');
    const { token: first } = await loadOrCreateToken(path);
    const second = await rotateToken(path);
    assert.notEqual(second, first);
    assert.match(second, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(await readFile(path, 'utf8'), `${second}\n`);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(dir), ['token']);
    assert.deepEqual(await loadOrCreateToken(path), { token: second, created: false });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('watchToken follows rotations, keeps the last good token over a bad file, and stops when closed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-token-'));
  const path = join(dir, 'token');
  const { token: first } = await loadOrCreateToken(path);
  const changes: string[] = [];
  const invalid: string[] = [];
  const watch = watchToken(path, first, {
    onChange: (token) => changes.push(token),
    onInvalid: (reason) => invalid.push(reason),
  });
  try {
    assert.equal(watch.current(), first);
    const second = await rotateToken(path);
    await eventually(() => watch.current() === second, 'the rotated token');
    assert.deepEqual(changes, [second]);
    // Something else writes junk (renamed in, so it is whole): the host keeps the token it had.
    await writeFile(join(dir, 'junk'), 'not a token\n');
    await rename(join(dir, 'junk'), path);
    await eventually(() => invalid.length > 0, 'the bad file to be reported');
    assert.equal(watch.current(), second);
    watch.close();
    await rotateToken(path);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(watch.current(), second, 'a closed watch no longer changes');
  } finally {
    watch.close();
    await rm(dir, { recursive: true, force: true });
  }
});
