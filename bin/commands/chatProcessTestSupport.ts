import assert from 'node:assert/strict';
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAlive } from '@outrigger/claude-sdk-sidecar/testing';

/** The CLI entry, as the chat's process tests run it. */
export const OUTRIGGER = fileURLToPath(new URL('../outrigger.ts', import.meta.url));

/**
 * This process's environment with every Anthropic and Claude variable (and npm's script variables)
 * removed and HOME moved to `home`: no credential is found, so the chat runs the demo model.
 */
export function demoChatEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(ANTHROPIC_|CLAUDE_|npm_)/.test(name)) continue;
    env[name] = value;
  }
  env.HOME = home;
  return env;
}

/** `outrigger chat` as a child process, its output collected as it comes. */
export interface ChatProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<unknown[]>;
  stdout(): string;
  stderr(): string;
  /** Waits until the chat says its session is ready (60 s at most); fails with its output if it exits first. */
  untilReady(): Promise<void>;
}

/** Runs `node bin/outrigger.ts chat --data-dir HOME/data` with exactly `env`. */
export function spawnChat(home: string, env: Record<string, string>): ChatProcess {
  const child = spawn(process.execPath, [OUTRIGGER, 'chat', '--data-dir', join(home, 'data')], {
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
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    untilReady: async () => {
      const deadline = Date.now() + 60_000;
      while (!stdout.includes('is ready in')) {
        assert.ok(child.exitCode === null, `chat exited before the session was ready:\n${stdout}\n${stderr}`);
        assert.ok(Date.now() < deadline, `the session was not ready within 60 s:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** Fails unless every one of `pids` is gone; an orphan exiting right now is reaped by init a moment later. */
async function assertAllGone(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(pids.filter(isAlive), [], 'processes left behind');
}

/**
 * Waits for the chat process to exit (killing it after `timeoutMs`), asserts exit code 0, and that the
 * processes it ran (the sidecar and Claude Code, seen below it while it chatted) are gone.
 */
export async function assertCleanExit(
  child: ChildProcess,
  exited: Promise<unknown[]>,
  processes: readonly number[],
  transcript: () => string,
  timeoutMs = 90_000,
): Promise<void> {
  const timeout = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = await exited;
  clearTimeout(timeout);
  assert.equal(code, 0, `exit code; transcript:\n${transcript()}`);
  assert.ok(processes.length >= 2, `expected the sidecar and Claude Code below the chat, saw ${processes.length}`);
  await assertAllGone(processes);
}

/** After the test, pass or fail: nothing it started survives, and its home directory goes. */
export async function cleanUpChatProcess(
  child: ChildProcess,
  processes: readonly number[],
  home: string,
): Promise<void> {
  if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of processes) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await rm(home, { recursive: true, force: true });
}
