import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EmitEvent } from '@outrigger/protocol';
import { withDiagnosticSinkForTest } from '../diagnostics/diagnosticLine.ts';
import { PROVIDER_TURN_DIAGNOSTIC_PREFIX, ProviderTurnDiagnostics } from '../diagnostics/providerTurnDiagnostics.ts';
import { TurnBindingResolutionError } from '../fork/turnBindingResolution.ts';
import {
  type BarrierContext,
  type IdentityClock,
  ProviderTurnIdentityBarrier,
  type ResolvedTurnIdentity,
  type TurnIdentityResolver,
} from './providerTurnIdentity.ts';
import { TurnLifecycle } from './turnLifecycle.ts';

const CONTEXT: BarrierContext = {
  providerSessionId: 'provider-1',
  cwd: '/work',
  claudeConfigDir: undefined,
  generationId: 1,
};
const IDENTITY: ResolvedTurnIdentity = {
  providerTurnId: 'provider-turn-1',
  providerCheckpointMessageId: 'checkpoint-1',
};

function resolutionError(reason: 'absent' | 'ambiguous'): TurnBindingResolutionError {
  return new TurnBindingResolutionError(reason, {
    transcriptMessageCount: 7,
    rootUserMessageCount: 3,
    matchingRootUserMessageCount: reason === 'ambiguous' ? 2 : 0,
    latestRootUserMessageId: undefined,
  });
}

/** A clock that only moves when the barrier sleeps; every sleep is recorded. */
function steppingClock() {
  let now = 0;
  const sleeps: number[] = [];
  const clock: IdentityClock = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
  return { clock, sleeps };
}

function rig(resolve: TurnIdentityResolver, clock?: IdentityClock) {
  const events: string[] = [];
  const emit: EmitEvent = (type, payload) => events.push(`${type}:${(payload as { turnId?: string }).turnId}`);
  const turns = new TurnLifecycle(emit);
  const turn = turns.enqueue({ turnId: 't1', correlationId: 'corr-1' });
  turn.generationId = 1;
  turn.phase = 'dispatched';
  const barrier = new ProviderTurnIdentityBarrier({
    resolve,
    retry: { initialDelayMs: 25, maxDelayMs: 250, deadlineMs: 5_000 },
    ...(clock ? { clock } : {}),
    diagnostics: new ProviderTurnDiagnostics({ scheduleTimer: () => ({ unref() {}, cancel() {} }) }),
    bind: (bound, identity) => {
      if (turns.bindIdentity(bound, identity.providerTurnId) === 'conflict') return false;
      turns.checkpoint(bound, identity.providerCheckpointMessageId);
      return true;
    },
  });
  return { events, turns, turn, barrier };
}

function stages(lines: readonly string[]): string[] {
  return lines
    .filter((line) => line.startsWith(`${PROVIDER_TURN_DIAGNOSTIC_PREFIX} `))
    .map((line) => {
      const payload = JSON.parse(line.slice(PROVIDER_TURN_DIAGNOSTIC_PREFIX.length + 1)) as Record<string, unknown>;
      return `${payload.stage}${payload.reason ? `:${payload.reason}` : ''}`;
    });
}

test('an absent transcript is read again with a doubling delay capped at the maximum, then binds', async () => {
  const { clock, sleeps } = steppingClock();
  let reads = 0;
  const r = rig(async () => {
    reads += 1;
    if (reads < 7) throw resolutionError('absent');
    return IDENTITY;
  }, clock);
  await withDiagnosticSinkForTest(async (lines) => {
    await r.barrier.await(r.turn, 'streaming', CONTEXT);
    assert.deepEqual(stages(lines), ['identity_recovery_started', 'identity_recovery_resolved']);
  });
  assert.deepEqual(sleeps, [25, 50, 100, 200, 250, 250]);
  assert.equal(r.turn.providerTurnId, 'provider-turn-1');
  assert.equal(r.turn.phase, 'streaming');
  assert.deepEqual(r.events, ['provider_turn_identity_resolved:t1', 'provider_turn_checkpoint:t1']);
});

test('a transcript still absent at the deadline fails with the deadline error; the last sleep stops at the deadline', async () => {
  const { clock, sleeps } = steppingClock();
  const r = rig(async () => {
    throw resolutionError('absent');
  }, clock);
  await withDiagnosticSinkForTest(async (lines) => {
    await assert.rejects(r.barrier.await(r.turn, 'streaming', CONTEXT), {
      name: 'TurnIdentityError',
      message: 'Claude provider turn identity was not persisted before the acceptance deadline',
    });
    assert.deepEqual(stages(lines).at(-1), 'identity_recovery_failed:transcript_absent_at_deadline');
    const record = JSON.parse(String(lines.at(-1)).replace(/^\S+ /, '')) as Record<string, unknown>;
    assert.equal(record.transcriptMessageCount, 7);
    assert.equal(record.matchingRootUserMessageCount, 0);
  });
  assert.equal(
    sleeps.reduce((sum, ms) => sum + ms, 0),
    5_000,
  );
  assert.ok(
    sleeps.slice(4, -1).every((ms) => ms === 250),
    `sleeps: ${sleeps.join(', ')}`,
  );
  assert.equal(r.turn.providerTurnId, undefined);
});

test('an ambiguous transcript fails at once, without retrying', async () => {
  const { clock, sleeps } = steppingClock();
  let reads = 0;
  const r = rig(async () => {
    reads += 1;
    throw resolutionError('ambiguous');
  }, clock);
  await withDiagnosticSinkForTest(async (lines) => {
    await assert.rejects(r.barrier.await(r.turn, 'streaming', CONTEXT), { reason: 'ambiguous' });
    assert.deepEqual(stages(lines).at(-1), 'identity_recovery_failed:transcript_ambiguous');
    const record = JSON.parse(String(lines.at(-1)).replace(/^\S+ /, '')) as Record<string, unknown>;
    assert.deepEqual(
      [record.transcriptMessageCount, record.rootUserMessageCount, record.matchingRootUserMessageCount],
      [7, 3, 2],
      'the failure carries the transcript counts',
    );
  });
  assert.equal(reads, 1);
  assert.deepEqual(sleeps, []);
});

test('missing session or correlation identities fail before any read', async () => {
  const r = rig(async () => assert.fail('no read without identities'));
  await withDiagnosticSinkForTest(() =>
    assert.rejects(r.barrier.await(r.turn, 'streaming', { ...CONTEXT, providerSessionId: '' }), {
      message: 'Claude provider turn identity resolution requires session and correlation identities',
    }),
  );
});

test('concurrent callers for one turn share a single flight', async () => {
  let reads = 0;
  const gate = Promise.withResolvers<ResolvedTurnIdentity>();
  const r = rig(() => {
    reads += 1;
    return gate.promise;
  });
  await withDiagnosticSinkForTest(async () => {
    const router = r.barrier.await(r.turn, 'streaming', CONTEXT);
    const approval = r.barrier.await(r.turn, 'waiting_approval', CONTEXT, new AbortController().signal);
    gate.resolve(IDENTITY);
    await Promise.all([router, approval]);
  });
  assert.equal(reads, 1);
  assert.deepEqual(r.events, ['provider_turn_identity_resolved:t1', 'provider_turn_checkpoint:t1']);
});

/** A barrier whose one transcript read answers when `gate` does; `flight` keeps the signal that read was given. */
function gatedFlight() {
  const gate = Promise.withResolvers<ResolvedTurnIdentity>();
  const flight: { signal?: AbortSignal } = {};
  const r = rig((_request, signal) => {
    flight.signal = signal;
    return gate.promise;
  });
  return { r, gate, flight };
}

test("one waiter's abort ends only its own wait; the flight goes on for the others", async () => {
  const { r, gate, flight } = gatedFlight();
  await withDiagnosticSinkForTest(async () => {
    const router = r.barrier.await(r.turn, 'streaming', CONTEXT);
    const sdkAbort = new AbortController();
    const approval = r.barrier.await(r.turn, 'waiting_approval', CONTEXT, sdkAbort.signal);
    sdkAbort.abort();
    await assert.rejects(approval, { name: 'AbortError' });
    assert.equal(flight.signal?.aborted, false, 'the shared flight is not aborted');
    gate.resolve(IDENTITY);
    await router;
  });
  assert.equal(r.turn.providerTurnId, 'provider-turn-1');
});

test('a waiter whose signal is already aborted leaves at once and does not abort the flight', async () => {
  const { r, gate, flight } = gatedFlight();
  await withDiagnosticSinkForTest(async () => {
    const router = r.barrier.await(r.turn, 'streaming', CONTEXT);
    await assert.rejects(r.barrier.await(r.turn, 'waiting_approval', CONTEXT, AbortSignal.abort()), {
      name: 'AbortError',
    });
    assert.equal(flight.signal?.aborted, false);
    gate.resolve(IDENTITY);
    await router;
  });
});

test('abort() (a cancel) ends the flight for every waiter', async () => {
  const r = rig(
    (_request, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('read aborted')), { once: true });
      }),
  );
  await withDiagnosticSinkForTest(async (lines) => {
    const router = r.barrier.await(r.turn, 'streaming', CONTEXT);
    const approval = r.barrier.await(r.turn, 'waiting_approval', CONTEXT, new AbortController().signal);
    r.barrier.abort();
    await assert.rejects(router, { name: 'AbortError' });
    await assert.rejects(approval, { name: 'AbortError' });
    assert.deepEqual(stages(lines).at(-1), 'identity_recovery_failed:canceled');
  });
  assert.equal(r.turn.providerTurnId, undefined);
});

test('a turn bound meanwhile (by its echo) needs no flight, and a synthetic turn is never gated', async () => {
  const r = rig(async () => assert.fail('no transcript read'));
  r.turns.bindIdentity(r.turn, 'from-echo');
  await r.barrier.await(r.turn, 'running_tool', CONTEXT);
  assert.equal(r.turn.phase, 'running_tool');
  const synthetic = r.turns.openSynthetic(1);
  await r.barrier.await(synthetic, 'waiting_approval', CONTEXT);
  assert.equal(synthetic.phase, 'waiting_approval');
});
