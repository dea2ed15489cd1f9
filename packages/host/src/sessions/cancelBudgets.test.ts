import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostLimits } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';
import { resolveCancelBudgets } from './cancelBudgets.ts';

test('absent budgets take the seed defaults; given ones are kept', () => {
  assert.deepEqual(resolveCancelBudgets({}), { interruptTimeoutMs: 10_000, drainTimeoutMs: 8_000 });
  assert.deepEqual(resolveCancelBudgets({ interruptTimeoutMs: 1, drainTimeoutMs: hostLimits.maxCancelBudgetMs }), {
    interruptTimeoutMs: 1,
    drainTimeoutMs: hostLimits.maxCancelBudgetMs,
  });
});

test('a wrong budget is refused, naming the field, never replaced', () => {
  const wrong: unknown[] = [
    0,
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    hostLimits.maxCancelBudgetMs + 1,
    '100',
    null,
  ];
  for (const value of wrong) {
    for (const field of ['interruptTimeoutMs', 'drainTimeoutMs'] as const) {
      assert.throws(
        () => resolveCancelBudgets({ [field]: value } as never),
        (error: unknown) =>
          error instanceof HostError && error.code === 'validation_failed' && error.details?.[0]?.path === field,
        `${field}=${String(value)}`,
      );
    }
  }
});
