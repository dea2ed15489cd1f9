import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { descendants } from '@outrigger/claude-sdk-sidecar/testing';
import { assertCleanExit, cleanUpChatProcess, demoChatEnv, OUTRIGGER } from './chatProcessTestSupport.ts';

test('the chat talks to the demo model through the real sidecar and exits 0 on EOF, leaving no child', async () => {
  const home = await mkdtemp(join(tmpdir(), 'outrigger-chat-'));
  const child = spawn(process.execPath, [OUTRIGGER, 'chat', '--data-dir', join(home, 'data')], {
    env: demoChatEnv(home),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let processes: number[] = [];
  try {
    child.stdin.end('hello there\n');
    const deadline = Date.now() + 60_000;
    while (!stdout.includes('is ready in')) {
      assert.ok(child.exitCode === null, `chat exited before the session was ready:\n${stdout}\n${stderr}`);
      assert.ok(Date.now() < deadline, `the session was not ready within 60 s:\n${stdout}\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    processes = descendants(child.pid ?? -1);

    await assertCleanExit(child, exited, processes, () => `${stdout}\n${stderr}`);
    assert.match(stdout, /DEMO MODEL — offline scripted answers: no Claude credential was found/);
    assert.match(stdout, /markdown +a streamed formatted answer/);
    // The demo model's fallback answer, streamed and rendered (no markdown markers; piped, no styles
    // either), then the turn's summary line.
    assert.match(stdout, /Hi! I'm the Outrigger demo model[\s\S]*Set ANTHROPIC_API_KEY and restart/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: piped output carries no escape sequence
    assert.doesNotMatch(stdout, /\x1b/);
    assert.match(stdout, /— done \(end_turn\) · \d+\.\d s · 0 tool calls/);
    assert.equal(stderr, '');
  } finally {
    await cleanUpChatProcess(child, processes, home);
  }
});
