import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const OUTRIGGER = fileURLToPath(new URL('../outrigger.ts', import.meta.url));

/** Every live process below `root`, read from /proc. */
async function descendants(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name may contain spaces and parentheses; the fields after its last ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== undefined && fields[0] !== 'Z') parents.set(Number(entry), Number(fields[1]));
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('npm start chats with the demo model through the real sidecar and exits 0 on EOF, leaving no child', async () => {
  const home = await mkdtemp(join(tmpdir(), 'outrigger-start-'));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('ANTHROPIC_') && !name.startsWith('CLAUDE_')) env[name] = value;
  }
  env.HOME = home;
  const child = spawn(process.execPath, [OUTRIGGER, 'start', '--data-dir', join(home, 'data')], {
    env,
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
      assert.ok(child.exitCode === null, `start exited before the session was ready:\n${stdout}\n${stderr}`);
      assert.ok(Date.now() < deadline, `the session was not ready within 60 s:\n${stdout}\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    processes = await descendants(child.pid ?? -1);

    const timeout = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const [code] = await exited;
    clearTimeout(timeout);

    assert.equal(code, 0, `exit code; output:\n${stdout}\n${stderr}`);
    assert.match(stdout, /DEMO MODEL — offline scripted answers; set ANTHROPIC_API_KEY for Claude/);
    assert.match(stdout, /markdown +a streamed formatted answer/);
    // The demo model's fallback answer, streamed, then the turn's summary line.
    assert.match(stdout, /Hi! I'm the \*\*Outrigger demo model\*\*[\s\S]*Set `ANTHROPIC_API_KEY` and restart/);
    assert.match(stdout, /— done \(end_turn\) · \d+\.\d s · 0 tool calls/);
    assert.equal(stderr, '');
    // The sidecar and its Claude Code child were running, and are gone now.
    assert.ok(processes.length >= 2, `expected the sidecar and Claude Code below start, saw ${processes.length}`);
    // An orphan that is exiting right now is reaped by init a moment later; allow for that, briefly.
    const reapDeadline = Date.now() + 5_000;
    while (processes.some(isAlive) && Date.now() < reapDeadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(processes.filter(isAlive), [], 'processes left behind');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const pid of processes) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await rm(home, { recursive: true, force: true });
  }
});
