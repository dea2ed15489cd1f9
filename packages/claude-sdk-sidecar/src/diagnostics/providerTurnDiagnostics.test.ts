import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withDiagnosticSinkForTest } from './diagnosticLine.ts';
import {
  PENDING_IDENTITY_WARNING_AFTER_MS,
  PROVIDER_TURN_DIAGNOSTIC_PREFIX,
  ProviderTurnDiagnostics,
  type ProviderTurnSnapshot,
  type ScheduleTimer,
} from './providerTurnDiagnostics.ts';

const turn: ProviderTurnSnapshot = {
  turnId: 'turn-1',
  providerSessionId: 'prov-1',
  promptCorrelationId: 'corr-1',
  generationId: 4,
  providerTurnPhase: 'dispatched',
  awaitingProviderTurnIdentity: true,
};

function parse(line: string): Record<string, unknown> {
  const prefix = `${PROVIDER_TURN_DIAGNOSTIC_PREFIX} `;
  assert.ok(line.startsWith(prefix), `line must start with the prefix: ${line}`);
  return JSON.parse(line.slice(prefix.length));
}

/** Timers the test fires by hand, recording whether each was unref'd or cancelled. */
function manualTimers() {
  const scheduled: { callback: () => void; ms: number; unrefed: boolean; cleared: boolean }[] = [];
  const scheduleTimer: ScheduleTimer = (callback, ms) => {
    const entry = { callback, ms, unrefed: false, cleared: false };
    scheduled.push(entry);
    return {
      unref: () => {
        entry.unrefed = true;
      },
      cancel: () => {
        entry.cleared = true;
      },
    };
  };
  return { scheduled, scheduleTimer };
}

describe('ProviderTurnDiagnostics', () => {
  it('writes recovery started, resolved (with rewrite detection) and failed records', async () => {
    const lines = await withDiagnosticSinkForTest((captured) => {
      const diagnostics = new ProviderTurnDiagnostics({ pid: 9 });
      diagnostics.identityRecoveryStarted(turn, { triggerPhase: 'streaming', timeoutMs: 5000 });
      diagnostics.identityRecoveryResolved(turn, {
        triggerPhase: 'streaming',
        timeoutMs: 5000,
        attempts: 3,
        elapsedMs: 75,
        providerTurnId: 'rewritten-1',
        providerCheckpointMessageId: 'cp-1',
      });
      diagnostics.identityRecoveryFailed(turn, {
        triggerPhase: 'waiting_approval',
        timeoutMs: 5000,
        reason: 'transcript_ambiguous',
        attempts: 1,
        elapsedMs: 4,
        error: new Error('CANARY transcript text'),
        rootUserMessageCount: 2,
        matchingRootUserMessageCount: 2,
      });
      return [...captured];
    });
    const [started, resolved, failed] = lines.map(parse);
    assert.deepEqual(started, {
      stage: 'identity_recovery_started',
      sidecarPid: 9,
      turnId: 'turn-1',
      providerSessionId: 'prov-1',
      promptCorrelationId: 'corr-1',
      generationId: 4,
      providerTurnPhase: 'dispatched',
      awaitingProviderTurnIdentity: true,
      triggerPhase: 'streaming',
      timeoutMs: 5000,
    });
    assert.equal(resolved.correlationIdRewritten, true);
    assert.equal(resolved.attempts, 3);
    assert.equal(resolved.providerCheckpointMessageId, 'cp-1');
    assert.equal(failed.reason, 'transcript_ambiguous');
    assert.equal(failed.matchingRootUserMessageCount, 2);
    assert.equal((failed.error as { messageLength: number }).messageLength, 22);
    assert.doesNotMatch(lines.join('\n'), /CANARY/);
  });

  it('writes the query-ended and consumption-failed records per turn', async () => {
    const lines = await withDiagnosticSinkForTest((captured) => {
      const diagnostics = new ProviderTurnDiagnostics({ pid: 9 });
      diagnostics.queryEndedBeforeIdentity(turn);
      diagnostics.queryConsumptionFailedBeforeIdentity(turn, Object.assign(new Error('x'), { status: 529 }));
      return [...captured];
    });
    const [ended, failed] = lines.map(parse);
    assert.equal(ended.stage, 'query_ended_before_identity');
    assert.equal(ended.turnId, 'turn-1');
    assert.equal(failed.stage, 'query_consumption_failed_before_identity');
    assert.equal((failed.error as { status: number }).status, 529);
  });

  it('warns once, with an unref timer, after the delay when the turn still has no identity', async () => {
    const { scheduled, scheduleTimer } = manualTimers();
    let readings = [1000, 121_000];
    const lines = await withDiagnosticSinkForTest((captured) => {
      const diagnostics = new ProviderTurnDiagnostics({
        pid: 9,
        scheduleTimer,
        now: () => {
          const [next, ...rest] = readings;
          readings = rest;
          return next;
        },
      });
      diagnostics.schedulePendingIdentityWarning(() => turn);
      assert.equal(scheduled.length, 1);
      assert.equal(scheduled[0].ms, PENDING_IDENTITY_WARNING_AFTER_MS);
      assert.equal(scheduled[0].unrefed, true);
      assert.equal(captured.length, 0, 'nothing is written before the timer fires');
      scheduled[0].callback();
      return [...captured];
    });
    assert.equal(lines.length, 1);
    const warning = parse(lines[0]);
    assert.equal(warning.stage, 'provider_turn_identity_pending_after_timeout');
    assert.equal(warning.severity, 'warning');
    assert.equal(warning.warningAfterMs, 120_000);
    assert.equal(warning.elapsedMs, 120_000);
  });

  it('stays silent when the identity resolved or the turn is gone, and cancel clears the timer', async () => {
    const { scheduled, scheduleTimer } = manualTimers();
    const lines = await withDiagnosticSinkForTest((captured) => {
      const diagnostics = new ProviderTurnDiagnostics({ scheduleTimer });
      diagnostics.schedulePendingIdentityWarning(() => ({ ...turn, awaitingProviderTurnIdentity: false }), 5);
      diagnostics.schedulePendingIdentityWarning(() => undefined, 5);
      const handle = diagnostics.schedulePendingIdentityWarning(() => turn, 5);
      handle.cancel();
      scheduled[0].callback();
      scheduled[1].callback();
      return [...captured];
    });
    assert.deepEqual(lines, []);
    assert.equal(scheduled[2].cleared, true);
  });
});
