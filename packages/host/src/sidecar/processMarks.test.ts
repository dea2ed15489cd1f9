import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { pollUntil } from '@outrigger/claude-sdk-sidecar/testing';
import { HOST_MARK_VARIABLE, hostMarkFor, killSurvivors, markedProcesses, reapPreviousRun } from './processMarks.ts';

test('finds the processes carrying a mark (also grandchildren in a group of their own) and kills the survivors', async () => {
  const mark = randomUUID();
  // A shell in its own process group starting a grandchild, the way Claude Code runs a tool.
  const shell = spawn('/bin/sh', ['-c', 'sleep 60 & wait'], {
    env: { PATH: process.env.PATH, TEST_MARK: mark },
    detached: true,
    stdio: 'ignore',
  });
  try {
    const found = await pollUntil(
      () => {
        const processes = markedProcesses('TEST_MARK', mark);
        return processes.length >= 2 ? processes : undefined;
      },
      'the shell and its sleep',
      5_000,
    );
    assert.ok(found.some((item) => item.pid === shell.pid));
    assert.deepEqual(markedProcesses('TEST_MARK', randomUUID()), [], 'another mark finds nothing');
    assert.equal(killSurvivors(found), found.length);
    await pollUntil(() => (markedProcesses('TEST_MARK', mark).length === 0 ? true : undefined), 'all gone', 5_000);
    assert.equal(killSurvivors(found), 0, 'what is gone is not killed again');
  } finally {
    try {
      process.kill(-shell.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

test('a previous run is given its grace, then what is left of it is killed', async () => {
  const mark = hostMarkFor(`/tmp/${randomUUID()}/host.db`);
  assert.equal(hostMarkFor('/data/host.db'), hostMarkFor('/data/host.db'), 'the same database, the same mark');
  assert.notEqual(hostMarkFor('/data/host.db'), hostMarkFor('/other/host.db'));
  const spawnMarked = (seconds: string) =>
    spawn('sleep', [seconds], {
      env: { PATH: process.env.PATH, [HOST_MARK_VARIABLE]: mark },
      detached: true,
      stdio: 'ignore',
    });
  const quick = spawnMarked('0.2');
  const stuck = spawnMarked('60');
  try {
    await pollUntil(
      () => (markedProcesses(HOST_MARK_VARIABLE, mark).length === 2 ? true : undefined),
      'both run',
      5_000,
    );
    assert.equal(await reapPreviousRun(mark, 1_000), 1, 'the quick one ended by itself; the stuck one was killed');
    await pollUntil(
      () => (markedProcesses(HOST_MARK_VARIABLE, mark).length === 0 ? true : undefined),
      'none left',
      5_000,
    );
    assert.equal(await reapPreviousRun(mark, 1_000), 0, 'nothing left: nothing killed, no wait');
  } finally {
    for (const child of [quick, stuck]) {
      try {
        process.kill(child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
});
