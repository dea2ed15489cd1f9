import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger, startHost } from '@outrigger/host';

const cli = fileURLToPath(new URL('../outrigger.ts', import.meta.url));

function run(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 30_000 });
}

test('`outrigger token rotate --help` (and `token --help`) print the usage and change nothing', () => {
  for (const args of [
    ['token', 'rotate', '--help'],
    ['token', '-h'],
  ]) {
    const result = run(args);
    assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stdout, /^usage: outrigger token rotate \[--data-dir DIR\]/);
    assert.equal(result.stderr, '');
  }
  assert.match(run(['--help']).stdout, /^ {2}token /m);
});

test('`outrigger token` without `rotate`, or with a bad option, is a usage error', () => {
  const bare = run(['token']);
  assert.equal(bare.status, 2);
  assert.match(bare.stderr, /outrigger token: a subcommand is needed/);
  const other = run(['token', 'show']);
  assert.equal(other.status, 2);
  assert.match(other.stderr, /unknown subcommand 'show'/);
  const bogus = run(['token', 'rotate', '--bogus']);
  assert.equal(bogus.status, 2);
  assert.match(bogus.stderr, /^outrigger token: Unknown option '--bogus'/);
});

async function status(baseUrl: string, credential: { bearer: string } | { cookie: string }): Promise<number> {
  const headers = 'bearer' in credential ? { authorization: `Bearer ${credential.bearer}` } : credential;
  const response = await fetch(`${baseUrl}/api/info`, { headers });
  await response.body?.cancel();
  return response.status;
}

test('rotating while a host runs: the old bearer gets 401, the new one 200, the file stays 0600', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'outrigger-rotate-'));
  const host = await startHost({
    dataDir,
    port: 0,
    sidecarEnv: {},
    modelBackend: { kind: 'demo', reason: 'test' },
    logger: silentLogger,
  });
  try {
    const old = host.token;
    assert.equal(await status(host.baseUrl, { bearer: old }), 200);
    const page = await fetch(host.url, { redirect: 'manual' });
    const cookie = page.headers.get('set-cookie')?.split(';')[0] ?? assert.fail('the page load sets no cookie');
    assert.equal(await status(host.baseUrl, { cookie }), 200);
    const result = run(['token', 'rotate', '--data-dir', dataDir, '--port', String(host.port)]);
    assert.equal(result.status, 0, result.stderr);
    const fresh = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
    assert.notEqual(fresh, old);
    assert.ok(result.stdout.includes(`http://127.0.0.1:${host.port}/?token=${fresh}`), result.stdout);
    assert.equal((await stat(join(dataDir, 'token'))).mode & 0o777, 0o600);
    const deadline = Date.now() + 5000;
    while ((await status(host.baseUrl, { bearer: old })) !== 401) {
      if (Date.now() > deadline) assert.fail('the running host still takes the old token 5 s after the rotation');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(await status(host.baseUrl, { cookie }), 401, 'the old cookie stops working too');
    assert.equal(await status(host.baseUrl, { bearer: fresh }), 200);
    assert.equal(host.token, fresh);
    assert.equal(host.url, `${host.baseUrl}/?token=${fresh}`);
  } finally {
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
