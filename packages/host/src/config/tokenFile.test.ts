import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadOrCreateToken } from './tokenFile.ts';

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
