import { type DiagnosticPayload, fingerprintError, writeDiagnosticLine } from './diagnosticLine.ts';

export const PROVIDER_TURN_DIAGNOSTIC_PREFIX = 'CLAUDE_CODE_PROVIDER_TURN_DIAGNOSTIC';

/** How long a dispatched turn may wait for its provider identity before one warning is logged. */
export const PENDING_IDENTITY_WARNING_AFTER_MS = 120_000;

/** What the runtime knows about a turn whose provider identity is in question, read when a record is written. */
export interface ProviderTurnSnapshot {
  readonly turnId: string;
  readonly providerSessionId: string;
  readonly promptCorrelationId: string;
  readonly generationId?: number;
  readonly providerTurnPhase?: string;
  readonly awaitingProviderTurnIdentity: boolean;
}

/** One run of the transcript identity barrier: the phase that needed identity and its deadline. */
export interface IdentityRecoveryAttempt {
  readonly triggerPhase: string;
  readonly timeoutMs: number;
}

export type IdentityRecoveryFailureReason =
  | 'missing_required_identity'
  | 'canceled'
  | 'transcript_ambiguous'
  | 'transcript_absent_at_deadline'
  | 'transcript_read_or_binding_failed';

export interface IdentityRecoveryResolution extends IdentityRecoveryAttempt {
  readonly attempts: number;
  readonly elapsedMs: number;
  readonly providerTurnId: string;
  readonly providerCheckpointMessageId: string;
}

export interface IdentityRecoveryFailure extends IdentityRecoveryAttempt {
  readonly reason: IdentityRecoveryFailureReason;
  readonly attempts: number;
  readonly elapsedMs: number;
  readonly error?: unknown;
  readonly transcriptMessageCount?: number;
  readonly rootUserMessageCount?: number;
  readonly matchingRootUserMessageCount?: number;
}

export interface PendingIdentityWarning {
  cancel(): void;
}

/** Runs `callback` once after `ms`; the handle can let the process exit meanwhile, or cancel it. */
export type ScheduleTimer = (callback: () => void, ms: number) => { unref(): void; cancel(): void };

const scheduleNodeTimer: ScheduleTimer = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  return { unref: () => void timer.unref(), cancel: () => clearTimeout(timer) };
};

export interface ProviderTurnDiagnosticsOptions {
  readonly pid?: number;
  readonly now?: () => number;
  readonly scheduleTimer?: ScheduleTimer;
}

/** The `CLAUDE_CODE_PROVIDER_TURN_DIAGNOSTIC` records: identity recovery, and turns that never got an identity. */
export class ProviderTurnDiagnostics {
  readonly #pid: number;
  readonly #now: () => number;
  readonly #scheduleTimer: ScheduleTimer;

  constructor(options: ProviderTurnDiagnosticsOptions = {}) {
    this.#pid = options.pid ?? process.pid;
    this.#now = options.now ?? performance.now.bind(performance);
    this.#scheduleTimer = options.scheduleTimer ?? scheduleNodeTimer;
  }

  identityRecoveryStarted(turn: ProviderTurnSnapshot, attempt: IdentityRecoveryAttempt): void {
    this.#write('identity_recovery_started', turn, {
      triggerPhase: attempt.triggerPhase,
      timeoutMs: attempt.timeoutMs,
    });
  }

  identityRecoveryResolved(turn: ProviderTurnSnapshot, resolution: IdentityRecoveryResolution): void {
    this.#write('identity_recovery_resolved', turn, {
      triggerPhase: resolution.triggerPhase,
      timeoutMs: resolution.timeoutMs,
      attempts: resolution.attempts,
      elapsedMs: resolution.elapsedMs,
      providerTurnId: resolution.providerTurnId,
      providerCheckpointMessageId: resolution.providerCheckpointMessageId,
      correlationIdRewritten: resolution.providerTurnId !== turn.promptCorrelationId,
    });
  }

  identityRecoveryFailed(turn: ProviderTurnSnapshot, failure: IdentityRecoveryFailure): void {
    this.#write('identity_recovery_failed', turn, {
      triggerPhase: failure.triggerPhase,
      timeoutMs: failure.timeoutMs,
      reason: failure.reason,
      attempts: failure.attempts,
      elapsedMs: failure.elapsedMs,
      transcriptMessageCount: failure.transcriptMessageCount,
      rootUserMessageCount: failure.rootUserMessageCount,
      matchingRootUserMessageCount: failure.matchingRootUserMessageCount,
      error: failure.error === undefined ? undefined : fingerprintError(failure.error),
    });
  }

  queryConsumptionFailedBeforeIdentity(turn: ProviderTurnSnapshot, error: unknown): void {
    this.#write('query_consumption_failed_before_identity', turn, { error: fingerprintError(error) });
  }

  /** One record per unresolved, non-synthetic, unsettled turn of a Query whose iterator ended. */
  queryEndedBeforeIdentity(turn: ProviderTurnSnapshot): void {
    this.#write('query_ended_before_identity', turn, {});
  }

  /**
   * Logs one warning if the turn still awaits its identity after `warningAfterMs` (`readTurn` returns
   * undefined once the turn is gone). Only observes:
   * the turn itself is never changed. The timer is unref'd so it never keeps the process alive.
   */
  schedulePendingIdentityWarning(
    readTurn: () => ProviderTurnSnapshot | undefined,
    warningAfterMs: number = PENDING_IDENTITY_WARNING_AFTER_MS,
  ): PendingIdentityWarning {
    const scheduledAt = this.#now();
    const timer = this.#scheduleTimer(() => {
      const turn = readTurn();
      if (!turn?.awaitingProviderTurnIdentity) return;
      this.#write('provider_turn_identity_pending_after_timeout', turn, {
        severity: 'warning',
        warningAfterMs,
        elapsedMs: Math.round(this.#now() - scheduledAt),
      });
    }, warningAfterMs);
    timer.unref();
    return { cancel: () => timer.cancel() };
  }

  #write(stage: string, turn: ProviderTurnSnapshot, fields: DiagnosticPayload): void {
    writeDiagnosticLine(PROVIDER_TURN_DIAGNOSTIC_PREFIX, {
      stage,
      sidecarPid: this.#pid,
      turnId: turn.turnId,
      providerSessionId: turn.providerSessionId,
      promptCorrelationId: turn.promptCorrelationId,
      generationId: turn.generationId,
      providerTurnPhase: turn.providerTurnPhase,
      awaitingProviderTurnIdentity: turn.awaitingProviderTurnIdentity,
      ...fields,
    });
  }
}
