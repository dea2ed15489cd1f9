import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { isAlive, pollUntil } from '@outrigger/claude-sdk-sidecar/testing';
import { recordingLogger } from '../logging/runtimeLogger.ts';
import { SESSION_MARK_VARIABLE } from '../sidecar/processMarks.ts';
import { REAP_GRACE_MS, ToolProcesses } from './toolProcesses.ts';

/* Real processes carrying a session's mark, as Claude Code's tools carry it: a `sleep` in a group of its own. */

let nextSession = 0;
const sessionId = (): string => `tool-processes-${process.pid}-${++nextSession}`;

function spawnMarked(session: string): number {
  const child = spawn('sleep', ['60'], {
    env: { PATH: process.env.PATH, [SESSION_MARK_VARIABLE]: session },
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return child.pid!;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

test('a dead Claude Code’s orphans: every process with the session’s mark is killed and counted', async () => {
  const session = sessionId();
  const logger = recordingLogger();
  const tools = new ToolProcesses(session, logger);
  const pids = [spawnMarked(session), spawnMarked(session)];
  try {
    await pollUntil(() => (tools.snapshot().length === 2 ? true : undefined), 'both run', 5_000);
    await tools.reapOrphans();
    await pollUntil(() => (pids.some(isAlive) ? undefined : true), 'both are gone', 5_000);
    const reaped = logger.records.find((record) => record.fields.event === 'session.tool_processes_reaped');
    assert.deepEqual(reaped?.fields, {
      event: 'session.tool_processes_reaped',
      sessionId: session,
      reason: 'claude_code_exited',
      count: 2,
    });
  } finally {
    for (const pid of pids) kill(pid);
  }
});

test('after a retired Claude Code: what ran before it was retired is killed after the grace; what started later is left', async () => {
  const session = sessionId();
  const logger = recordingLogger();
  const tools = new ToolProcesses(session, logger);
  const before = spawnMarked(session);
  let later: number | undefined;
  try {
    const snapshot = await pollUntil(
      () => (tools.snapshot().length === 1 ? tools.snapshot() : undefined),
      'the tool runs',
      5_000,
    );
    later = spawnMarked(session);
    tools.reapAfterGrace(snapshot, 'cancel');
    assert.ok(isAlive(before), 'nothing is killed before the grace');
    await pollUntil(() => (isAlive(before) ? undefined : true), 'the earlier tool is gone', REAP_GRACE_MS + 5_000);
    assert.ok(isAlive(later), 'a process that was not running before is left alone');
    const reaped = logger.records.find((record) => record.fields.event === 'session.tool_processes_reaped');
    assert.equal(reaped?.fields.reason, 'cancel');
    assert.equal(reaped?.fields.count, 1);
  } finally {
    kill(before);
    if (later !== undefined) kill(later);
  }
});
