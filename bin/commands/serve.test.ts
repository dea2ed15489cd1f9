import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { credentialFreeEnv } from '../../packages/host/test/harness/serveChild.ts';

const cli = fileURLToPath(new URL('../outrigger.ts', import.meta.url));

function run(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 30_000 });
}

test('`outrigger serve --help` prints its usage and starts nothing', () => {
  const result = run(['serve', '--help']);
  assert.equal(result.status, 0);
  assert.match(result.stdout, /^usage: outrigger serve \[--port N\]/);
  for (const option of [
    '--port',
    '--host',
    '--data-dir',
    '--allow-root',
    '--tool-timeout',
    '--tls-cert',
    '--tls-key',
    '--insecure-remote',
  ]) {
    assert.ok(result.stdout.includes(option), option);
  }
});

test('`outrigger serve` with a bad option says what is wrong and exits 2', () => {
  const result = run(['serve', '--port', 'many']);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /outrigger serve: --port must be a port number/);
  assert.equal(result.stdout, '');
});

test('`outrigger --help` lists serve', () => {
  assert.match(run(['--help']).stdout, /^ {2}serve /m);
});

test('`outrigger serve --host 0.0.0.0` without TLS is refused with the ways on, and creates nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-serve-remote-'));
  try {
    const dataDir = join(dir, 'data');
    const result = run(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--host 0\.0\.0\.0 is reachable from other machines/);
    assert.match(result.stderr, /ssh -L 7420:127\.0\.0\.1:7420 HOST/);
    assert.match(result.stderr, /--tls-cert FILE --tls-key FILE/);
    assert.match(result.stderr, /--insecure-remote/);
    assert.equal(result.stdout, '');
    await assert.rejects(stat(dataDir), { code: 'ENOENT' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** The environment of a machine with no Claude credential at all, so `serve` picks the demo model. */
function demoEnv(claudeConfigDir: string): NodeJS.ProcessEnv {
  return { ...credentialFreeEnv(), CLAUDE_CONFIG_DIR: claudeConfigDir };
}

/**
 * Runs `outrigger serve` until it prints its URL, hands the output so far to `check`, then stops it with
 * SIGTERM and waits for it to exit. The child inherits umask 022, the usual one, under which the bug showed.
 */
async function withServe(
  args: string[],
  env: NodeJS.ProcessEnv,
  check: (output: { stdout: string; stderr: string }) => Promise<void>,
): Promise<void> {
  const previous = process.umask(0o022);
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args], { env, stdio: 'pipe' });
  process.umask(previous);
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const deadline = Date.now() + 30_000;
    while (!/Outrigger is running/.test(output.stdout)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        assert.fail(`serve did not start: ${output.stdout}\n${output.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await check(output);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function modesUnder(root: string): Promise<Map<string, { mode: number; dir: boolean }>> {
  const modes = new Map<string, { mode: number; dir: boolean }>();
  const visit = async (path: string) => {
    const stats = await lstat(path);
    modes.set(relative(root, path) || '.', { mode: stats.mode & 0o777, dir: stats.isDirectory() });
    if (stats.isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(root);
  return modes;
}

function assertPrivate(modes: Map<string, { mode: number; dir: boolean }>): void {
  for (const [path, { mode, dir }] of modes) {
    if (dir) assert.equal(mode, 0o700, `directory ${path} is ${mode.toString(8)}`);
    else assert.equal(mode & 0o077, 0, `file ${path} is ${mode.toString(8)}: readable by others`);
  }
  for (const file of ['host.db', 'host.db-wal', 'host.db-shm', 'token', 'logs/host.log']) {
    assert.equal(modes.get(file)?.mode, 0o600, `${file}: ${modes.get(file)?.mode.toString(8)}`);
  }
}

test('demo mode: a data directory `serve` makes itself is owner-only from the start, demo-claude included', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-serve-demo-'));
  try {
    const dataDir = join(dir, 'data');
    await withServe(['--data-dir', dataDir], demoEnv(join(dir, 'no-claude')), async ({ stdout }) => {
      assert.match(stdout, /DEMO MODEL/, 'the demo backend is the one under test');
      const modes = await modesUnder(dataDir);
      assert.equal(modes.get('demo-claude/config')?.mode, 0o700);
      assertPrivate(modes);
      // Nothing had to be narrowed: the demo backend made the directory 0700 itself.
      assert.doesNotMatch(stdout, /was open to other users/);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('demo mode: an existing 0755 data directory with 0644 files is narrowed and the terminal says so', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-serve-demo-'));
  try {
    const dataDir = join(dir, 'data');
    await mkdir(join(dataDir, 'logs'), { recursive: true });
    await mkdir(join(dataDir, 'demo-claude', 'config', 'projects'), { recursive: true });
    await writeFile(join(dataDir, 'logs', 'host.log'), '');
    await writeFile(join(dataDir, 'demo-claude', 'config', 'projects', 'transcript.jsonl'), '{"prompt":"x"}\n');
    for (const path of ['.', 'logs', 'demo-claude', 'demo-claude/config', 'demo-claude/config/projects']) {
      await chmod(join(dataDir, path), 0o755);
    }
    for (const path of ['logs/host.log', 'demo-claude/config/projects/transcript.jsonl']) {
      await chmod(join(dataDir, path), 0o644);
    }
    await withServe(['--data-dir', dataDir], demoEnv(join(dir, 'no-claude')), async ({ stdout }) => {
      assert.match(stdout, /DEMO MODEL/);
      assert.match(stdout, new RegExp(`The data directory ${dataDir} was open to other users; it is now owner-only`));
      const modes = await modesUnder(dataDir);
      assert.equal(modes.get('demo-claude/config/projects/transcript.jsonl')?.mode, 0o600);
      assertPrivate(modes);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('`serve --host 0.0.0.0 --insecure-remote` starts, with a loud warning on stderr', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-serve-insecure-'));
  try {
    const args = ['--data-dir', join(dir, 'data'), '--host', '0.0.0.0', '--insecure-remote'];
    await withServe(args, demoEnv(join(dir, 'no-claude')), async (output) => {
      // stderr is a pipe of its own: its lines may arrive after the URL on stdout.
      const deadline = Date.now() + 5000;
      while (!/WARNING/.test(output.stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const { stdout, stderr } = output;
      assert.match(stderr, /WARNING: listening on 0\.0\.0\.0 over plain HTTP \(--insecure-remote\)/);
      assert.match(stderr, /clear text/);
      assert.match(stdout, /http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
