import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SidecarEvent } from '@outrigger/protocol';
import { recordingLogger } from '../logging/runtimeLogger.ts';
import { createFakeSidecar, type FakeSidecar } from './fakeSidecarConnection.ts';
import { isSidecarGone } from './sidecarFailure.ts';
import { type SidecarExitReport, SidecarSupervisor, SidecarUnavailableError } from './sidecarSupervisor.ts';

function harness() {
  const spawned: FakeSidecar[] = [];
  const logger = recordingLogger();
  const supervisor = new SidecarSupervisor({
    logger,
    exitReportGraceMs: 200,
    spawn: async () => {
      const fake = createFakeSidecar();
      spawned.push(fake);
      return fake;
    },
  });
  const exits: SidecarExitReport[] = [];
  supervisor.onExit((report) => exits.push(report));
  return { supervisor, spawned, logger, exits };
}

function nextExit(supervisor: SidecarSupervisor): Promise<SidecarExitReport> {
  return new Promise((resolve) => {
    const off = supervisor.onExit((report) => {
      off();
      resolve(report);
    });
  });
}

function nextEvent(supervisor: SidecarSupervisor): Promise<[string, SidecarEvent, number]> {
  return new Promise((resolve) => {
    const off = supervisor.onSessionEvent((...args) => {
      off();
      resolve(args);
    });
  });
}

describe('SidecarSupervisor', () => {
  test('spawns one sidecar on first need, however many ask at once', async () => {
    const { supervisor, spawned } = harness();
    try {
      assert.equal(supervisor.generation, undefined);
      assert.equal(spawned.length, 0, 'nothing is spawned before it is needed');
      const generations = await Promise.all([supervisor.ensure(), supervisor.ensure(), supervisor.ensure()]);
      assert.deepEqual(generations, [1, 1, 1]);
      assert.equal(spawned.length, 1);
      await supervisor.request(1, 'start', { agentSessionId: 's1' });
      assert.equal(spawned[0]?.requests[0]?.type, 'start');
    } finally {
      await supervisor.close();
    }
  });

  test('routes events by agentSessionId; a throwing listener neither stops the others nor escapes', async () => {
    const { supervisor, spawned, logger } = harness();
    try {
      await supervisor.ensure();
      supervisor.onSessionEvent(() => {
        throw new Error('listener bug');
      });
      const received = nextEvent(supervisor);
      spawned[0]?.emit('turn_completed', { agentSessionId: 'session-a', turnId: 't1', stopReason: 'end_turn' });
      const [sessionId, event, generation] = await received;
      assert.equal(sessionId, 'session-a');
      assert.equal(event.type, 'turn_completed');
      assert.equal(generation, 1);
      assert.ok(logger.records.some((record) => record.fields.event === 'sidecar.listener_failed'));

      const routed: string[] = [];
      supervisor.onSessionEvent((id) => routed.push(id));
      spawned[0]?.emit('error', { error: 'uncorrelated: secret text' });
      const again = nextEvent(supervisor);
      spawned[0]?.emit('turn_completed', { agentSessionId: 'session-b', turnId: 't2', stopReason: 'end_turn' });
      await again;
      assert.deepEqual(routed, ['session-b'], 'an event without a session is not routed');
      const logged = logger.records.find((record) => record.fields.event === 'sidecar.uncorrelated_error');
      assert.ok(logged, 'an uncorrelated error is logged');
      assert.doesNotMatch(JSON.stringify(logger.records), /secret text/);
    } finally {
      await supervisor.close();
    }
  });

  test('a death is reported once with the stderr tail; the old generation refuses; the next need respawns', async () => {
    const { supervisor, spawned, exits, logger } = harness();
    try {
      await supervisor.ensure();
      const first = spawned[0]!;
      const pending = supervisor.request(1, 'exec', { agentSessionId: 's', turnId: 't' }).then(
        () => undefined,
        (error: unknown) => assert.ok(isSidecarGone(error), `expected a gone sidecar, got ${String(error)}`),
      );
      first.writeStderr('CLAUDE_CODE_CANCEL_DIAGNOSTIC {"stage":"cancel_received"}');
      first.writeStderr('node:internal/process: Error: out of memory');
      supervisor.onExit(() => {
        throw new Error('exit listener bug');
      });
      const exited = nextExit(supervisor);
      first.die({ signal: 'SIGKILL' });
      const report = await exited;
      assert.equal(report.generation, 1);
      assert.equal(report.expected, false);
      assert.equal(report.signal, 'SIGKILL');
      assert.equal(report.message, 'sidecar exited: node:internal/process: Error: out of memory');
      await pending;
      assert.equal(supervisor.generation, undefined);
      await assert.rejects(supervisor.request(1, 'close', {}), SidecarUnavailableError);
      assert.equal(await supervisor.ensure(), 2);
      assert.equal(spawned.length, 2);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(exits.length, 1, 'reported once, though both the close and the exit were seen');
      assert.ok(
        logger.records.some(
          (record) => record.level === 'info' && record.fields.event === 'agent_session.claude_sdk.cancel_diagnostic',
        ),
      );
      assert.ok(logger.records.some((record) => record.level === 'error' && record.fields.event === 'sidecar.exited'));
      assert.ok(
        logger.records.some((record) => record.fields.event === 'sidecar.listener_failed'),
        'a throwing exit listener is logged; the others still get the report',
      );
    } finally {
      await supervisor.close();
    }
  });

  test('an exit without stderr says how it ended', async () => {
    const { supervisor, spawned } = harness();
    try {
      await supervisor.ensure();
      const exited = nextExit(supervisor);
      spawned[0]?.die({ code: 3 });
      assert.equal((await exited).message, 'sidecar exited: code 3');
    } finally {
      await supervisor.close();
    }
  });

  test('close stops the sidecar, reports the exit as expected and refuses later needs', async () => {
    const { supervisor, spawned, exits } = harness();
    await supervisor.ensure();
    await supervisor.close();
    assert.equal(spawned[0]?.stopped, true);
    assert.equal(exits.length, 1);
    assert.equal(exits[0]?.expected, true);
    await assert.rejects(supervisor.ensure(), (error: unknown) => {
      assert.ok(error instanceof SidecarUnavailableError);
      assert.equal(error.reason, 'closed');
      return true;
    });
  });

  test('a spawn failure is a clear unavailable error, and the next need tries again', async () => {
    const logger = recordingLogger();
    let attempts = 0;
    const supervisor = new SidecarSupervisor({
      logger,
      spawn: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('ENOENT /secret/path');
        return createFakeSidecar();
      },
    });
    try {
      await assert.rejects(supervisor.ensure(), (error: unknown) => {
        assert.ok(error instanceof SidecarUnavailableError);
        assert.equal(error.reason, 'spawn_failed');
        return true;
      });
      assert.equal(await supervisor.ensure(), 1);
      assert.doesNotMatch(JSON.stringify(logger.records), /secret/);
    } finally {
      await supervisor.close();
    }
  });
});
