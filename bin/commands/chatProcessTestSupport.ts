import assert from 'node:assert/strict';
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

/** Fails unless every one of `pids` is gone; an orphan exiting right now is reaped by init a moment later. */
export async function assertAllGone(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(pids.filter(isAlive), [], 'processes left behind');
}
