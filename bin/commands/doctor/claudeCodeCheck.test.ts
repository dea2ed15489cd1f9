import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { findBundledClaudeBinary } from '@outrigger/claude-sdk-sidecar/executable';
import { checkClaudeCode, runClaudeVersion } from './claudeCodeCheck.ts';

const posix = process.platform !== 'win32';
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outrigger-doctor-bin-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function script(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

test("the SDK's own binary: its path and the version it prints", async () => {
  const result = await checkClaudeCode({
    env: {},
    bundledBinary: () => '/sdk/claude',
    runVersion: async (path) => ({ version: `9.9.9 (Claude Code) from ${path}` }),
  });
  assert.equal(result.status, 'ok');
  assert.equal(result.detail, '9.9.9 (Claude Code) from /sdk/claude at /sdk/claude');
});

test('no platform package and no override: a failure that says how to get one', async () => {
  const result = await checkClaudeCode({
    env: {},
    bundledBinary: () => undefined,
    runVersion: async () => assert.fail('nothing to run'),
  });
  assert.equal(result.status, 'FAIL');
  assert.match(result.detail, /not installed: reinstall without --omit=optional, or set CLAUDE_CODE_EXECUTABLE/);
});

test('CLAUDE_CODE_EXECUTABLE wins, and a missing file there fails naming the variable', async () => {
  const missing = join(dir, 'no-such-claude');
  const result = await checkClaudeCode({
    env: { CLAUDE_CODE_EXECUTABLE: missing },
    bundledBinary: () => '/sdk/claude',
  });
  assert.equal(result.status, 'FAIL');
  assert.equal(result.detail, `${missing} (from CLAUDE_CODE_EXECUTABLE) does not run: no such file (ENOENT)`);
});

test('a binary that runs: the first line of --version', { skip: !posix }, async () => {
  const path = await script('claude-ok', 'echo "2.0.0 (Claude Code)"; echo second line');
  const result = await checkClaudeCode({ env: { CLAUDE_CODE_EXECUTABLE: path }, bundledBinary: () => undefined });
  assert.equal(result.status, 'ok');
  assert.equal(result.detail, `2.0.0 (Claude Code) at ${path} (from CLAUDE_CODE_EXECUTABLE)`);
});

test('a binary that fails: its exit code and the first line of its stderr', { skip: !posix }, async () => {
  const path = await script('claude-broken', 'echo "cannot load libc" >&2; exit 3');
  assert.deepEqual(await runClaudeVersion(path), { error: '--version exited with 3: cannot load libc' });
});

test('a file that is not executable', { skip: !posix || process.getuid?.() === 0 }, async () => {
  const path = join(dir, 'claude-noexec');
  await writeFile(path, '#!/bin/sh\necho 1\n', { mode: 0o644 });
  assert.deepEqual(await runClaudeVersion(path), { error: 'not executable (EACCES)' });
});

test('a binary that hangs is killed after the timeout, and is gone when the check answers', {
  skip: !posix,
}, async () => {
  const pidFile = join(dir, 'hang.pid');
  // `exec` keeps the pid: the one written is the one that must be killed.
  const path = await script('claude-hang', `echo $$ > ${pidFile}; exec sleep 30`);
  const started = Date.now();
  const result = await runClaudeVersion(path, 300);
  assert.deepEqual(result, { error: 'no answer to --version within 0.3 s' });
  assert.ok(Date.now() - started < 10_000);
  const pid = Number((await readFile(pidFile, 'utf8')).trim());
  assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
});

test('the real SDK binary of this checkout answers --version', {
  skip: findBundledClaudeBinary() === undefined,
}, async () => {
  const result = await checkClaudeCode({ env: {} });
  assert.equal(result.status, 'ok', result.detail);
  assert.match(result.detail, /^\d+\.\d+\.\d+ .*Claude Code.* at \//);
});
