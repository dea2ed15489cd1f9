import { type CancelTurnBody, cancelDefaults, hostLimits } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';

export interface CancelBudgets {
  readonly interruptTimeoutMs: number;
  readonly drainTimeoutMs: number;
}

/**
 * The seed's cancel budgets: absent ones take the defaults (10 s interrupt, 8 s drain); a present one
 * must be an integer from 1 to `hostLimits.maxCancelBudgetMs` or the cancel is refused before anything
 * is touched (fail-closed: a wrong budget never becomes some other budget).
 */
export function resolveCancelBudgets(body: CancelTurnBody): CancelBudgets {
  const interruptTimeoutMs = budget(body.interruptTimeoutMs, cancelDefaults.interruptTimeoutMs, 'interruptTimeoutMs');
  const drainTimeoutMs = budget(body.drainTimeoutMs, cancelDefaults.drainTimeoutMs, 'drainTimeoutMs');
  return { interruptTimeoutMs, drainTimeoutMs };
}

function budget(value: unknown, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= hostLimits.maxCancelBudgetMs) {
    return value;
  }
  const message = `must be an integer from 1 to ${hostLimits.maxCancelBudgetMs}`;
  throw new HostError('validation_failed', `${field} ${message}`, [{ path: field, message }]);
}

/** How long the host waits for the sidecar's answer to a cancel with these budgets. */
export function cancelRequestTimeoutMs(budgets: CancelBudgets): number {
  return budgets.interruptTimeoutMs + budgets.drainTimeoutMs + 5_000;
}
