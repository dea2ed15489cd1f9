import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../outrigger.ts', import.meta.url));
const SECRET = 'sk-ant-doctor-cli-secret-0123456789';
let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-doctor-cli-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `outrigger doctor` as a user runs it, with a key in the environment and its own Claude config dir. */
function doctor(args: string[]) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('npm_') && !name.startsWith('ANTHROPIC_') && name !== 'CLAUDE_CODE_EXECUTABLE',
    ),
  );
  return spawnSync(process.execPath, [cli, 'doctor', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...env, ANTHROPIC_API_KEY: SECRET, CLAUDE_CONFIG_DIR: join(root, 'claude') },
  });
}

async function dataDir(name: string, mode: number): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  await chmod(dir, mode);
  return dir;
}

test('a healthy setup: one line per check, exit 0, the key named but never shown', async () => {
  const result = doctor(['--data-dir', await dataDir('healthy', 0o700), '--port', '0']);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.equal(result.stderr, '');
  const names = result.stdout
    .trimEnd()
    .split('\n')
    .map((line) => /^(ok|note|FAIL) +(\S+(?: \S+)?) {2,}/.exec(line)?.[2]);
  assert.deepEqual(names, [
    'node',
    'claude code',
    'credential',
    'data dir',
    'data mode',
    'data write',
    'free space',
    'port',
  ]);
  assert.match(result.stdout, /^ok +credential +Claude answers: ANTHROPIC_API_KEY is set in the environment$/m);
  assert.doesNotMatch(result.stdout, /sk-ant-doctor-cli-secret/);
});

test('a data directory open to others: that line fails and the exit code is 1', {
  skip: process.platform === 'win32',
}, async () => {
  const dir = await dataDir('open', 0o755);
  const result = doctor(['--data-dir', dir, '--port', '0']);
  assert.equal(result.status, 1, result.stdout + result.stderr);
  assert.match(result.stdout, new RegExp(`^FAIL +data mode +0755: .*chmod 700 ${dir}`, 'm'));
  assert.equal(result.stdout.match(/^FAIL/gm)?.length, 1, result.stdout);
  assert.doesNotMatch(result.stdout + result.stderr, /sk-ant-doctor-cli-secret/);
});

test('--help prints the usage and checks nothing; a bad option is a usage error', () => {
  const help = doctor(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: outrigger doctor /);
  const bad = doctor(['--port', 'seventy']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^outrigger doctor: --port must be a port number/);
  assert.equal(bad.stdout, '');
});
