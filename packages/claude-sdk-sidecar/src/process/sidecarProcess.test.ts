import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { SidecarRequestError } from '@outrigger/protocol';
import { isAlive, pollUntil, processGroupMembers } from '../testing/processTree.ts';
import { type SidecarProcess, type SidecarProcessOptions, spawnSidecarProcess } from './sidecarProcess.ts';

/* The process API against the real `node src/main.ts` in test-driver mode: no SDK, no Claude Code. */

const DRIVER_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TUTTI_CLAUDE_SDK_SIDECAR_TEST_DRIVER: '1' };
const PRELOAD = pathToFileURL(new URL('./sidecarPreload.fixture.ts', import.meta.url).pathname).href;
const WAIT_MS = 10_000;

/** Runs `body` against a fresh sidecar and always reaps it, also when `body` fails. */
async function withSidecar(
  options: Partial<SidecarProcessOptions>,
  body: (sidecar: SidecarProcess) => Promise<void>,
): Promise<void> {
  const sidecar = await spawnSidecarProcess({ env: DRIVER_ENV, requestTimeoutMs: WAIT_MS, ...options });
  try {
    await body(sidecar);
  } finally {
    await sidecar.stop({ timeoutMs: 1_000 });
  }
}

/** A sidecar preloaded with a grandchild in its process group; resolves with the grandchild's pid. */
function preloadEnv(exitMode?: 'linger' | 'never'): Record<string, string> {
  return {
    ...DRIVER_ENV,
    NODE_OPTIONS: `--import=${PRELOAD}`,
    ...(exitMode === undefined ? {} : { SIDECAR_FIXTURE_EXIT: exitMode }),
  };
}

async function grandchildOf(sidecar: SidecarProcess): Promise<number> {
  const reported = await pollUntil(
    () => sidecar.diagnostics('FIXTURE_GRANDCHILD')[0],
    'the preload reports its grandchild',
    WAIT_MS,
  );
  const pid = reported.record.pid;
  assert.equal(typeof pid, 'number');
  assert.ok(isAlive(pid as number), 'the grandchild runs before the stop');
  return pid as number;
}

function assertGroupGone(sidecar: SidecarProcess): void {
  assert.deepEqual(processGroupMembers(sidecar.pid), [], 'no process of the sidecar group outlives the stop');
}

describe('spawnSidecarProcess', () => {
  it('answers requests, logs stdout in wire order with ids, and stops cleanly on the end of input', async () => {
    await withSidecar({ keepLog: true }, async (sidecar) => {
      const heard: string[] = [];
      sidecar.onLogEntry((entry) => heard.push(entry.type));
      const start = sidecar.send('start', { agentSessionId: 'process-api', cwd: '/tmp' });
      const result = (await start.response) as { providerSessionId?: unknown };
      assert.equal(typeof result.providerSessionId, 'string');
      const started = sidecar.log.findIndex((entry) => entry.type === 'session_started');
      const answer = sidecar.log.findIndex((entry) => entry.id === start.id);
      assert.ok(started >= 0 && answer > started, 'session_started is written before the ok of its start');
      assert.equal(sidecar.log[answer]?.type, 'ok');

      const [exec, unknownSession] = sidecar.sendTogether([
        { type: 'exec', payload: { agentSessionId: 'process-api', turnId: 'turn-1', prompt: 'hi' } },
        { type: 'exec', payload: { agentSessionId: 'no-such-session', turnId: 'turn-2', prompt: 'hi' } },
      ]);
      assert.ok(exec && unknownSession);
      assert.notEqual(exec.id, unknownSession.id);
      await Promise.all([
        exec.response,
        assert.rejects(unknownSession.response, (error: unknown) => {
          assert.ok(error instanceof SidecarRequestError);
          assert.equal(error.reason, 'error_response');
          assert.equal(error.requestId, unknownSession.id);
          return true;
        }),
      ]);
      await pollUntil(
        () => sidecar.log.find((entry) => entry.type === 'turn_completed'),
        'the echoed turn completes',
        WAIT_MS,
      );
      assert.deepEqual(
        heard,
        sidecar.log.map((entry) => entry.type),
        'listeners hear every logged message in order',
      );
      assert.deepEqual(
        sidecar.log.map((entry) => entry.index),
        sidecar.log.map((_, position) => position),
      );

      assert.deepEqual(await sidecar.stop(), { code: 0, signal: null });
      assert.equal(await sidecar.stop(), await sidecar.stop(), 'stop is idempotent');
      assert.equal(isAlive(sidecar.pid), false);
      assertGroupGone(sidecar);
      assert.deepEqual(sidecar.stderrLines, []);
    });
  });

  it('keeps no log unless asked, and reads raw lines written in one chunk', async () => {
    await withSidecar({}, async (sidecar) => {
      const errors: string[] = [];
      sidecar.client.onEvent((event) => {
        if (event.type === 'error') errors.push(event.payload.error);
      });
      sidecar.writeLines(['{"version":10,', 'not json either']);
      await pollUntil(() => (errors.length === 2 ? true : undefined), 'two parse errors', WAIT_MS);
      assert.deepEqual(errors, ['sidecar request is not valid JSON', 'sidecar request is not valid JSON']);
      assert.deepEqual(sidecar.log, []);
    });
  });

  it('kills what the sidecar left in its process group after a clean exit', async () => {
    await withSidecar({ env: preloadEnv() }, async (sidecar) => {
      const grandchild = await grandchildOf(sidecar);
      assert.deepEqual(await sidecar.stop(), { code: 0, signal: null });
      await pollUntil(() => (isAlive(grandchild) ? undefined : true), 'the grandchild is reaped', WAIT_MS);
      assertGroupGone(sidecar);
    });
  });

  it('escalates to SIGKILL of the whole group when the sidecar will not exit', async () => {
    await withSidecar({ env: preloadEnv('never') }, async (sidecar) => {
      const grandchild = await grandchildOf(sidecar);
      // Answered once the request loop runs, so its signal handlers are in place.
      await sidecar.request('close', { agentSessionId: 'not-started' });
      assert.deepEqual(await sidecar.stop({ timeoutMs: 300 }), { code: null, signal: 'SIGKILL' });
      assert.ok(
        sidecar.diagnostics('FIXTURE_EXIT_HELD').length >= 1,
        'the sidecar did try to exit, and was held there',
      );
      await pollUntil(() => (isAlive(grandchild) ? undefined : true), 'the grandchild is reaped', WAIT_MS);
      assertGroupGone(sidecar);
    });
  });

  it('closes its sessions and exits 0 on SIGTERM or SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      await withSidecar({}, async (sidecar) => {
        await sidecar.request('start', { agentSessionId: 'signaled', cwd: '/tmp' });
        process.kill(sidecar.pid, signal);
        assert.deepEqual(await sidecar.exited, { code: 0, signal: null }, `exit after ${signal}`);
        assert.equal(sidecar.client.closed, true, 'the sidecar ended its stdout');
        assert.deepEqual(sidecar.stderrLines, []);
      });
    }
  });

  it('exits at once on a second signal while it is still shutting down', async () => {
    await withSidecar({ env: preloadEnv('linger') }, async (sidecar) => {
      await grandchildOf(sidecar);
      await sidecar.request('start', { agentSessionId: 'signaled', cwd: '/tmp' });
      process.kill(sidecar.pid, 'SIGTERM');
      const held = await pollUntil(
        () => sidecar.diagnostics('FIXTURE_EXIT_HELD')[0],
        'the first signal leads to the clean exit',
        WAIT_MS,
      );
      assert.deepEqual(held.record, { code: 0 });
      process.kill(sidecar.pid, 'SIGTERM');
      assert.deepEqual(await sidecar.exited, { code: 143, signal: null });
    });
  });
});
