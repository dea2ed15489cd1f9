import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CANCEL_DIAGNOSTIC_PREFIX, CancelDiagnostics } from './cancelDiagnostics.ts';
import { diagnosticSafeMessage, withDiagnosticSinkForTest } from './diagnosticLine.ts';

const ids = { requestId: 'req-1', agentSessionId: 'agent-1', providerSessionId: 'prov-1', turnId: '' };

function parse(line: string): Record<string, unknown> {
  const prefix = `${CANCEL_DIAGNOSTIC_PREFIX} `;
  assert.ok(line.startsWith(prefix), `line must start with the prefix: ${line}`);
  assert.equal(line.includes('\n'), false);
  return JSON.parse(line.slice(prefix.length));
}

describe('CancelDiagnostics', () => {
  it('writes received, every shutdown stage and succeeded with ids, timings and the resolved turn', async () => {
    const lines = await withDiagnosticSinkForTest((captured) => {
      let now = 100;
      const diagnostics = new CancelDiagnostics(ids, { pid: 42, now: () => now });
      diagnostics.cancelReceived({ interruptTimeoutMs: 10_000, drainTimeoutMs: 8_000 });
      diagnostics.observeShutdown({
        stage: 'shutdown_started',
        generationId: 3,
        interrupt: true,
        interruptTimeoutMs: 10_000,
        drainTimeoutMs: 8_000,
        hasQuery: true,
        hasConsumption: true,
      });
      now = 112;
      diagnostics.observeShutdown({ stage: 'interrupt_succeeded', generationId: 3, durationMs: 12 });
      now = 140;
      diagnostics.observeShutdown({
        stage: 'shutdown_succeeded',
        generationId: 3,
        durationMs: 40,
        terminationMode: 'interrupt_acknowledged',
      });
      now = 241;
      diagnostics.cancelSucceeded({
        canceled: true,
        disposition: 'provider_active',
        dispatchPhase: 'streaming',
        turnId: 'turn-7',
        providerTurnId: 'ptid-7',
      });
      return [...captured];
    });
    const records = lines.map(parse);
    assert.deepEqual(
      records.map((record) => record.stage),
      ['cancel_received', 'shutdown_started', 'interrupt_succeeded', 'shutdown_succeeded', 'cancel_succeeded'],
    );
    for (const record of records) {
      assert.equal(record.sidecarPid, 42);
      assert.equal(record.requestId, 'req-1');
      assert.equal(record.agentSessionId, 'agent-1');
      assert.equal(record.providerSessionId, 'prov-1');
    }
    assert.deepEqual(records[0], {
      stage: 'cancel_received',
      sidecarPid: 42,
      requestId: 'req-1',
      agentSessionId: 'agent-1',
      providerSessionId: 'prov-1',
      turnId: '',
      interruptTimeoutMs: 10_000,
      drainTimeoutMs: 8_000,
      elapsedMs: 0,
    });
    assert.equal(records[1].generationId, 3);
    assert.equal(records[1].hasConsumption, true);
    assert.equal(records[2].durationMs, 12);
    assert.equal(records[3].terminationMode, 'interrupt_acknowledged');
    assert.deepEqual(records[4], {
      stage: 'cancel_succeeded',
      sidecarPid: 42,
      requestId: 'req-1',
      agentSessionId: 'agent-1',
      providerSessionId: 'prov-1',
      turnId: 'turn-7',
      durationMs: 141,
      canceled: true,
      disposition: 'provider_active',
      dispatchPhase: 'streaming',
      providerTurnId: 'ptid-7',
      elapsedMs: 141,
    });
  });

  it('logs {name, message}: its own messages verbatim, foreign ones redacted with a fingerprint', async () => {
    class QueryShutdownTimeoutError extends Error {
      readonly [diagnosticSafeMessage] = true;
      override readonly name = 'QueryShutdownTimeoutError';
    }
    const lines = await withDiagnosticSinkForTest((captured) => {
      const diagnostics = new CancelDiagnostics({ ...ids, turnId: 'turn-1' }, { pid: 1 });
      diagnostics.observeShutdown({
        stage: 'interrupt_failed',
        generationId: 1,
        durationMs: 3,
        error: new Error('CANARY-interrupt-output'),
      });
      diagnostics.cancelFailed(
        new QueryShutdownTimeoutError('Claude SDK Query consumption timed out after 5ms'),
        'consumption',
      );
      return [...captured];
    });
    const [interruptFailed, cancelFailed] = lines.map(parse);
    assert.doesNotMatch(lines.join('\n'), /CANARY/);
    assert.deepEqual(Object.keys(interruptFailed.error as object).sort(), [
      'message',
      'messageFingerprint',
      'messageLength',
      'name',
    ]);
    assert.equal((interruptFailed.error as { message: string }).message, 'redacted');
    assert.equal(cancelFailed.errorStage, 'consumption');
    assert.deepEqual(cancelFailed.error, {
      name: 'QueryShutdownTimeoutError',
      message: 'Claude SDK Query consumption timed out after 5ms',
    });
  });

  it("writes a prompt withdrawal's stages with its answer", async () => {
    const lines = await withDiagnosticSinkForTest((captured) => {
      const diagnostics = new CancelDiagnostics({ ...ids, turnId: 'turn-2' }, { pid: 1 });
      diagnostics.observeShutdown({ stage: 'prompt_withdraw_started', generationId: 4, timeoutMs: 500 });
      diagnostics.observeShutdown({
        stage: 'prompt_withdraw_answered',
        generationId: 4,
        durationMs: 3,
        withdrawn: true,
      });
      return [...captured];
    });
    const [started, answered] = lines.map(parse);
    assert.deepEqual(
      { stage: started.stage, generationId: started.generationId, timeoutMs: started.timeoutMs },
      { stage: 'prompt_withdraw_started', generationId: 4, timeoutMs: 500 },
    );
    assert.deepEqual(
      {
        stage: answered.stage,
        durationMs: answered.durationMs,
        withdrawn: answered.withdrawn,
        turnId: answered.turnId,
      },
      { stage: 'prompt_withdraw_answered', durationMs: 3, withdrawn: true, turnId: 'turn-2' },
    );
  });

  it('copies only allow-listed fields from shutdown stages', async () => {
    const lines = await withDiagnosticSinkForTest((captured) => {
      const diagnostics = new CancelDiagnostics(ids, { pid: 1 });
      const stage = { stage: 'query_close_started', generationId: 2, prompt: 'CANARY-prompt' } as const;
      diagnostics.observeShutdown(stage);
      return [...captured];
    });
    assert.doesNotMatch(lines[0], /CANARY|prompt/);
    assert.equal(parse(lines[0]).generationId, 2);
  });
});
