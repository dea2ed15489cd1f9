import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RUNTIME_TIMERS, runtimeTimersFromEnv } from './runtimeDefaults.ts';

test('timers come from the environment; anything but a positive integer keeps the default', () => {
  const timers = runtimeTimersFromEnv({
    OUTRIGGER_SIDECAR_IDLE_QUERY_TTL_MS: '1500',
    OUTRIGGER_SIDECAR_RESULT_TIMEOUT_MS: '-1',
    OUTRIGGER_SIDECAR_CONTINUATION_TIMEOUT_MS: 'soon',
    OUTRIGGER_SIDECAR_SETTLED_REFRESH_QUIET_MS: '40',
    OUTRIGGER_SIDECAR_INTERRUPT_TIMEOUT_MS: '700',
    OUTRIGGER_SIDECAR_STREAM_STALL_WARNING_MS: '1000',
    OUTRIGGER_SIDECAR_STREAM_STALL_BUDGET_MS: '3000',
  });
  assert.equal(timers.interruptTimeoutMs, 700);
  assert.equal(timers.streamStallWarningMs, 1000);
  assert.equal(timers.streamStallBudgetMs, 3000);
  assert.equal(timers.idleQueryTtlMs, 1500);
  assert.equal(timers.resultTimeoutMs, DEFAULT_RUNTIME_TIMERS.resultTimeoutMs);
  assert.equal(timers.continuationStartTimeoutMs, DEFAULT_RUNTIME_TIMERS.continuationStartTimeoutMs);
  assert.equal(timers.settledRefreshQuietMs, 40);
  assert.equal(runtimeTimersFromEnv({}).idleQueryTtlMs, 10 * 60_000, 'an idle Query lives 10 minutes by default');
  assert.equal(runtimeTimersFromEnv({}).settledRefreshQuietMs, 250, 'the settled refresh waits 250 ms by default');
  const defaults = runtimeTimersFromEnv({});
  assert.deepEqual(
    [defaults.interruptTimeoutMs, defaults.streamStallWarningMs, defaults.streamStallBudgetMs],
    [10_000, 15_000, 120_000],
    'interrupts get 10 s; a silent stream is reported every 15 s and stopped at 120 s',
  );
});
