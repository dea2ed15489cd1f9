import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { isAlive, pollUntil, processGroupMembers } from '@outrigger/claude-sdk-sidecar/testing';
import type { SidecarEvent } from '@outrigger/protocol';
import { recordingLogger } from '../logging/runtimeLogger.ts';
import { spawnSidecarConnection } from './sidecarConnection.ts';
import { isSidecarGone } from './sidecarFailure.ts';
import { type SidecarExitReport, SidecarSupervisor } from './sidecarSupervisor.ts';

/* The supervisor over the real sidecar process in test-driver mode (no Claude Code). */

const DRIVER_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TUTTI_CLAUDE_SDK_SIDECAR_TEST_DRIVER: '1' };

test('a killed sidecar is reported, its group reaped, writes to it refused, and the next need respawns', async () => {
  const logger = recordingLogger();
  const supervisor = new SidecarSupervisor({ logger, spawn: () => spawnSidecarConnection({ env: DRIVER_ENV }) });
  const events: [string, SidecarEvent][] = [];
  supervisor.onSessionEvent((sessionId, event) => events.push([sessionId, event]));
  const exits: SidecarExitReport[] = [];
  supervisor.onExit((report) => exits.push(report));
  try {
    const generation = await supervisor.ensure();
    const pid = supervisor.pid!;
    await supervisor.request(generation, 'start', { agentSessionId: 'real-a', cwd: '/tmp' });
    await supervisor.request(generation, 'exec', { agentSessionId: 'real-a', turnId: 't1', prompt: 'hello' });
    await pollUntil(
      () => events.find(([id, event]) => id === 'real-a' && event.type === 'turn_completed'),
      'the turn completes',
      10_000,
    );

    process.kill(pid, 'SIGKILL');
    // Writes right after the death must be refused, never an uncaught EPIPE.
    const refused = await Promise.allSettled(
      Array.from({ length: 20 }, () => supervisor.request(generation, 'close', { agentSessionId: 'real-a' })),
    );
    for (const outcome of refused) {
      if (outcome.status === 'rejected') assert.ok(isSidecarGone(outcome.reason), String(outcome.reason));
    }
    const report = await pollUntil(() => exits[0], 'the exit report', 10_000);
    assert.equal(report.signal, 'SIGKILL');
    assert.equal(report.expected, false);
    assert.match(report.message, /^sidecar exited: /);
    await pollUntil(() => (processGroupMembers(pid).length === 0 ? true : undefined), 'the group is gone', 10_000);

    const next = await supervisor.ensure();
    assert.equal(next, generation + 1);
    assert.notEqual(supervisor.pid, pid);
  } finally {
    const last = supervisor.pid;
    await supervisor.close();
    if (last !== undefined) assert.deepEqual(processGroupMembers(last), [], 'close reaps the sidecar group');
  }
  assert.equal(exits.length, 2);
  assert.equal(exits[1]?.expected, true);
});

test('stop also kills what escaped the sidecar group but carries its mark', async () => {
  const preload = pathToFileURL(new URL('./escapingChild.fixture.ts', import.meta.url).pathname).href;
  const connection = await spawnSidecarConnection({ env: { ...DRIVER_ENV, NODE_OPTIONS: `--import=${preload}` } });
  const lines: string[] = [];
  connection.onStderrLine((line) => lines.push(line));
  let escaped: number | undefined;
  try {
    escaped = await pollUntil(
      () => {
        const line = lines.find((item) => item.startsWith('FIXTURE_ESCAPED '));
        return line === undefined
          ? undefined
          : (JSON.parse(line.slice('FIXTURE_ESCAPED '.length)) as { pid: number }).pid;
      },
      'the escaped child',
      10_000,
    );
    assert.notDeepEqual(processGroupMembers(connection.pid), [], 'the sidecar runs');
    assert.equal(processGroupMembers(connection.pid).includes(escaped), false, 'it is outside the group');
    await connection.stop();
    await pollUntil(() => (isAlive(escaped!) ? undefined : true), 'the escaped child is killed', 5_000);
  } finally {
    if (escaped !== undefined && isAlive(escaped)) process.kill(escaped, 'SIGKILL');
    connection.killNow();
  }
});
