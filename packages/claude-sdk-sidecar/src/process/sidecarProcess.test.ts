import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { SidecarRequestError } from '@outrigger/protocol';
import { ensureSidecarBuilt } from '../testing/ensureSidecarBuilt.ts';
import { isAlive, pollUntil, processGroupMembers } from '../testing/processTree.ts';
import { testDriverEnv } from '../testing/testDriverEnv.ts';
import type { SidecarDiagnostic } from './sidecarDiagnostic.ts';
import { SIDECAR_BUILT_ENTRY, SIDECAR_SOURCE_ENTRY } from './sidecarEntry.ts';
import {
  type SidecarLogEntry,
  type SidecarProcess,
  type SidecarProcessListenerKind,
  type SidecarProcessOptions,
  spawnSidecarProcess,
} from './sidecarProcess.ts';

/* The process API against the real built sidecar (`node dist/main.js`) in test-driver mode: no SDK, no Claude Code. */

const DRIVER_ENV = testDriverEnv();
const PRELOAD = pathToFileURL(new URL('./sidecarPreload.fixture.ts', import.meta.url).pathname).href;
const SDK_PROBE = pathToFileURL(new URL('./sdkLoadProbe.fixture.ts', import.meta.url).pathname).href;
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
  before(() => ensureSidecarBuilt());

  it('runs the built entry by default, and the source when asked', async () => {
    for (const entry of [undefined, SIDECAR_SOURCE_ENTRY]) {
      await withSidecar({ entry }, async (sidecar) => {
        const cmdline = readFileSync(`/proc/${sidecar.pid}/cmdline`, 'utf8').split('\0');
        assert.equal(cmdline[1], entry ?? SIDECAR_BUILT_ENTRY);
        const result = await sidecar.request<{ providerSessionId: string }>('start', {
          agentSessionId: 'entry',
          cwd: '/tmp',
        });
        assert.equal(typeof result.providerSessionId, 'string');
      });
    }
  });

  it('never loads the Claude Agent SDK in test-driver mode; a real sidecar loads it before its first start', async () => {
    const probe = { NODE_OPTIONS: `--import=${SDK_PROBE}` };
    for (const entry of [SIDECAR_BUILT_ENTRY, SIDECAR_SOURCE_ENTRY]) {
      await withSidecar({ entry, env: { ...DRIVER_ENV, ...probe } }, async (sidecar) => {
        await sidecar.request('start', { agentSessionId: 'driver', cwd: '/tmp' });
        await sidecar.request('exec', { agentSessionId: 'driver', turnId: 'turn-1', prompt: 'hi' });
        await sidecar.request('close', { agentSessionId: 'driver' });
        assert.deepEqual(await sidecar.stop(), { code: 0, signal: null });
        assert.deepEqual(sidecar.diagnostics('FIXTURE_SDK_IMPORTED'), [], `${entry} imported the SDK`);
      });
    }
    await withSidecar({ env: { PATH: DRIVER_ENV.PATH, ...probe } }, async (sidecar) => {
      const imported = await pollUntil(
        () => sidecar.diagnostics('FIXTURE_SDK_IMPORTED')[0],
        'the real sidecar imports the SDK',
        WAIT_MS,
      );
      assert.deepEqual(imported.record, { specifier: '@anthropic-ai/claude-agent-sdk' });
    });
  });

  it('a crash rejects pending requests as closed and leaves exit, reason and stderr tail for the supervisor', async () => {
    await withSidecar({ env: preloadEnv() }, async (sidecar) => {
      const heard: [string, SidecarDiagnostic | undefined][] = [];
      sidecar.onStderrLine((line, diagnostic) => heard.push([line, diagnostic]));
      await grandchildOf(sidecar);
      await sidecar.request('start', { agentSessionId: 'doomed', cwd: '/tmp' });
      // The sidecar stops reading, so the next request is still waiting for its answer when it dies.
      process.kill(sidecar.pid, 'SIGHUP');
      await pollUntil(() => sidecar.diagnostics('FIXTURE_STDIN_PAUSED')[0], 'the sidecar stops reading', WAIT_MS);
      const pending = sidecar.request('exec', { agentSessionId: 'doomed', turnId: 'turn-1', prompt: 'hi' });
      const rejected = assert.rejects(pending, (error: unknown) => {
        assert.ok(error instanceof SidecarRequestError);
        assert.equal(error.reason, 'closed');
        assert.equal(
          error.message,
          'sidecar connection closed before exec was answered: the sidecar closed its output',
        );
        return true;
      });
      process.kill(sidecar.pid, 'SIGUSR2');
      const exit = await sidecar.exited;
      assert.deepEqual(exit, { code: 1, signal: null });
      await rejected;
      assert.equal(sidecar.client.closed, true);
      assert.equal(sidecar.client.closeReason?.kind, 'input_ended');

      const tail = sidecar.stderrTail();
      assert.match(tail, /^fixture: about to crash\n/);
      assert.match(tail, /Error: fixture crash on SIGUSR2/);
      assert.doesNotMatch(tail, /FIXTURE_GRANDCHILD/, 'diagnostics are not part of the tail');
      assert.ok(sidecar.stderrTail({ maxChars: 40 }).length <= 40);
      assert.equal(sidecar.stderrTail({ maxLines: 1 }).includes('\n'), false);

      const diagnostic = heard.find(([, parsed]) => parsed !== undefined);
      assert.equal(diagnostic?.[1]?.prefix, 'FIXTURE_GRANDCHILD', 'diagnostic lines arrive parsed');
      assert.deepEqual(
        heard.map(([line]) => line),
        [...sidecar.stderrLines],
        'every stderr line arrives as it is kept',
      );

      // Writing to the dead sidecar is a rejected request, never an uncaught EPIPE.
      await assert.rejects(sidecar.request('close', { agentSessionId: 'doomed' }), /sidecar connection is closed/);
      sidecar.writeLines(['{"version":10,"type":"close","payload":{}}']);
      assert.deepEqual(await sidecar.stop(), exit);
    });
  });

  it('reports a listener that throws to its error hook and goes on serving', async () => {
    await withSidecar({ env: preloadEnv() }, async (sidecar) => {
      const thrown: SidecarProcessListenerKind[] = [];
      sidecar.onListenerError((_error, kind) => thrown.push(kind));
      const fail = () => {
        throw new Error('listener bug');
      };
      sidecar.onLogEntry(fail);
      sidecar.onStderrLine(fail);
      sidecar.client.onEvent(fail);
      await grandchildOf(sidecar);
      await sidecar.request('start', { agentSessionId: 'listeners', cwd: '/tmp' });
      await sidecar.request('exec', { agentSessionId: 'listeners', turnId: 'turn-1', prompt: 'hi' });
      await pollUntil(
        () =>
          thrown.includes('event') && thrown.includes('log_entry') && thrown.includes('stderr_line') ? true : undefined,
        'each kind of listener to have thrown',
        WAIT_MS,
      );
      assert.deepEqual(await sidecar.stop(), { code: 0, signal: null });
    });
  });
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
      // Nobody took the entries so far (they were not even parsed twice); a later listener's still count them.
      const entries: SidecarLogEntry[] = [];
      sidecar.onLogEntry((entry) => entries.push(entry));
      await sidecar.request('close', { agentSessionId: 'not-started' });
      assert.deepEqual(
        entries.map((entry) => [entry.index, entry.type]),
        [[2, 'ok']],
      );
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
