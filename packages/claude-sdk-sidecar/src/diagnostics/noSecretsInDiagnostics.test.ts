import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canaries, canariesIn } from '../testing/canaries.ts';
import { AuthRefreshDebug } from './authRefreshDebug.ts';
import { CancelDiagnostics } from './cancelDiagnostics.ts';
import { ProviderTurnDiagnostics } from './providerTurnDiagnostics.ts';

// ARCHITECTURE decision 7: prompts, tool input and credentials never reach stderr (the records here; the
// whole process under faults in test/control/noSecretsOverProcess.test.ts).
const { prompt: promptCanary, toolInput: toolInputCanary, credential: credentialCanary } = canaries;

/** An error as the SDK or Claude Code might raise it: its text quotes whatever it was working on. */
function leakyError(): Error {
  const error = new Error(
    `Claude Code failed on "${promptCanary}" running ${JSON.stringify({ command: toolInputCanary })}`,
  );
  return Object.assign(error, {
    code: credentialCanary,
    status: 401,
    headers: { 'x-api-key': credentialCanary },
    cause: new Error(credentialCanary),
  });
}

describe('diagnostics never carry prompts, tool input or credentials', () => {
  const written: string[] = [];
  const originalWrite = process.stderr.write;

  before(() => {
    // The real sink is exercised: everything that would reach stderr is captured here instead.
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }) as typeof process.stderr.write;
  });

  after(() => {
    process.stderr.write = originalWrite;
  });

  it('holds for every cancel, provider-turn and auth-refresh record fed with leaky errors and credentials', () => {
    const cancel = new CancelDiagnostics({
      requestId: 'req-1',
      agentSessionId: 'agent-1',
      providerSessionId: 'prov-1',
      turnId: 'turn-1',
    });
    cancel.cancelReceived({ interruptTimeoutMs: 10, drainTimeoutMs: 10 });
    cancel.observeShutdown({ stage: 'interrupt_failed', generationId: 1, durationMs: 1, error: leakyError() });
    cancel.observeShutdown({ stage: 'query_close_failed', generationId: 1, durationMs: 1, error: leakyError() });
    cancel.observeShutdown({ stage: 'interrupt_failed', generationId: 1, durationMs: 1, error: promptCanary });
    cancel.cancelFailed(leakyError(), 'consumption');

    const named = leakyError();
    named.name = credentialCanary;
    cancel.cancelFailed(named);

    const turn = {
      turnId: 'turn-1',
      providerSessionId: 'prov-1',
      promptCorrelationId: 'corr-1',
      awaitingProviderTurnIdentity: true,
    };
    const provider = new ProviderTurnDiagnostics();
    provider.identityRecoveryFailed(turn, {
      triggerPhase: 'streaming',
      timeoutMs: 5000,
      reason: 'transcript_read_or_binding_failed',
      attempts: 1,
      elapsedMs: 1,
      error: leakyError(),
    });
    provider.queryConsumptionFailedBeforeIdentity(turn, leakyError());

    const auth = new AuthRefreshDebug({ enabled: true });
    const ids = { agentSessionId: 'agent-1', providerSessionId: 'prov-1' };
    auth.record('query_created', {
      ...ids,
      generationId: 1,
      env: {
        ANTHROPIC_API_KEY: credentialCanary,
        CLAUDE_CODE_OAUTH_TOKEN: credentialCanary,
        CLAUDE_CONFIG_DIR: '/CANARY',
      },
    });
    auth.record('query_ended', { ...ids, generationId: 1, error: leakyError() });

    const output = written.join('');
    const lines = output.trimEnd().split('\n');
    assert.equal(lines.length, 10, 'every record was written to stderr');
    for (const line of lines)
      assert.match(line, /^CLAUDE_CODE_(CANCEL_DIAGNOSTIC|PROVIDER_TURN_DIAGNOSTIC|AUTH_REFRESH_DEBUG) \{.*\}$/);
    assert.deepEqual(canariesIn(output), [], 'stderr leaked a canary');
    // The fingerprint still lets an operator tell errors apart and see their status.
    assert.match(output, /"status":401/);
    assert.match(output, /"messageFingerprint":"[0-9a-f]{12}"/);
  });
});
