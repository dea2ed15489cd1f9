import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';

const waitMs = 10_000;
const runner =
  "import { runMockAnthropicCommand } from './cli.ts'; await runMockAnthropicCommand(process.argv.slice(1));";

function startCli(args: string[]) {
  return spawn(process.execPath, ['--input-type=module', '-e', runner, '--', ...args], {
    cwd: import.meta.dirname,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), waitMs).unref(),
    ),
  ]);
}

test('prints exactly the URL first, serves the demo, and stops on SIGTERM', async () => {
  const child = startCli(['--port', '0', '--scenario', 'demo']);
  try {
    const lines = createInterface({ input: child.stdout });
    const [url] = (await withTimeout(once(lines, 'line'), 'the URL line')) as [string];
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ stream: false, messages: [{ role: 'user', content: 'hello' }] }),
      signal: AbortSignal.timeout(waitMs),
    });
    const message = (await response.json()) as { content: { text: string }[] };
    assert.match(message.content[0]?.text ?? '', /Outrigger demo model/);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await withTimeout(exited, 'exit after SIGTERM')) as [number | null];
    assert.equal(code, 0);
  } finally {
    child.kill('SIGKILL');
  }
});

test('a broken scenario file fails with its name and field path', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mock-anthropic-cli-'));
  await writeFile(join(dir, 'bad.json'), JSON.stringify({ rules: [{ reply: {} }] }));
  const child = startCli(['--scenario', join(dir, 'bad.json')]);
  try {
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = (await withTimeout(once(child, 'exit'), 'the CLI to fail')) as [number | null];
    assert.notEqual(code, 0);
    assert.match(stderr, /scenario bad\.json: rules\[0\]\.reply: a reply needs exactly one of content, error or stall/);
  } finally {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
