import type { DispatchPhase } from '@outrigger/protocol';
import type {
  IdentityRecoveryFailureReason,
  ProviderTurnDiagnostics,
  ProviderTurnSnapshot,
} from '../diagnostics/providerTurnDiagnostics.ts';
import type { RuntimeTurn } from './turnLifecycle.ts';

export interface TurnIdentityRequest {
  providerSessionId: string;
  cwd: string;
  correlationId: string;
  /** The child's CLAUDE_CONFIG_DIR: the transcript is only visible there. */
  claudeConfigDir: string | undefined;
}

export interface ResolvedTurnIdentity {
  providerTurnId: string;
  providerCheckpointMessageId: string;
}

/** Reads the durable transcript for the one root user message answering a correlation uuid. */
export type TurnIdentityResolver = (request: TurnIdentityRequest, signal: AbortSignal) => Promise<ResolvedTurnIdentity>;

export interface IdentityRetryPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  deadlineMs: number;
}

export const DEFAULT_IDENTITY_RETRY: IdentityRetryPolicy = { initialDelayMs: 25, maxDelayMs: 250, deadlineMs: 5_000 };

/** Time as the retry loop sees it; injectable so backoff and deadline can be driven without waiting. */
export interface IdentityClock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const SYSTEM_CLOCK: IdentityClock = { now: () => performance.now(), sleep };

export class TurnIdentityError extends Error {
  readonly reason: string;
  constructor(message: string, reason: string) {
    super(message);
    this.name = 'TurnIdentityError';
    this.reason = reason;
  }
}

export interface BarrierContext {
  providerSessionId: string;
  cwd: string;
  claudeConfigDir: string | undefined;
  generationId: number | undefined;
}

export interface ProviderTurnIdentityBarrierOptions {
  resolve: TurnIdentityResolver;
  retry?: IdentityRetryPolicy;
  clock?: IdentityClock;
  diagnostics: ProviderTurnDiagnostics;
  /** Binds the resolved identity; returns false when the turn was already bound to a different id. */
  bind(turn: RuntimeTurn, identity: ResolvedTurnIdentity): boolean;
}

interface Flight {
  turn: RuntimeTurn;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Gate in front of every output of a Turn: the Turn's provider identity must be bound (from its echo, or
 * else from the transcript) before anything of it is published. One transcript flight per Turn is shared
 * by every waiting caller. A caller's own signal ends only its own wait (an SDK abort of one permission
 * request must not stall the router's output); a flight for another Turn, or `abort()` (cancel, close,
 * retired generation), ends the flight for everyone.
 */
export class ProviderTurnIdentityBarrier {
  readonly #options: ProviderTurnIdentityBarrierOptions;
  readonly #retry: IdentityRetryPolicy;
  readonly #clock: IdentityClock;
  #flight: Flight | undefined;

  constructor(options: ProviderTurnIdentityBarrierOptions) {
    this.#options = options;
    this.#retry = options.retry ?? DEFAULT_IDENTITY_RETRY;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  async await(turn: RuntimeTurn, phase: DispatchPhase, context: BarrierContext, signal?: AbortSignal): Promise<void> {
    if (turn.synthetic || turn.providerTurnId) {
      if (!turn.settled) turn.phase = phase;
      return;
    }
    let flight = this.#flight;
    if (!flight || flight.turn !== turn) {
      flight?.controller.abort();
      flight = this.#startFlight(turn, phase, context);
    }
    await (signal ? untilAborted(flight.done, signal) : flight.done);
    if (!turn.settled) turn.phase = phase;
  }

  /** Cancels the identity flight in progress, if any (cancel, close, retired generation). */
  abort(): void {
    this.#flight?.controller.abort();
    this.#flight = undefined;
  }

  #startFlight(turn: RuntimeTurn, phase: DispatchPhase, context: BarrierContext): Flight {
    const controller = new AbortController();
    const flight: Flight = {
      turn,
      controller,
      done: this.#resolve(turn, phase, context, controller.signal).finally(() => {
        if (this.#flight === flight) this.#flight = undefined;
      }),
    };
    // Every waiter may have left on its own signal; the outcome is then nobody's to handle.
    flight.done.catch(() => undefined);
    this.#flight = flight;
    return flight;
  }

  async #resolve(turn: RuntimeTurn, phase: DispatchPhase, context: BarrierContext, signal: AbortSignal): Promise<void> {
    const diagnostics = this.#options.diagnostics;
    const snapshot = (): ProviderTurnSnapshot => ({
      turnId: turn.turnId,
      providerSessionId: context.providerSessionId,
      promptCorrelationId: turn.correlationId,
      generationId: context.generationId,
      providerTurnPhase: turn.phase,
      awaitingProviderTurnIdentity: turn.providerTurnId === undefined,
    });
    const attempt = { triggerPhase: phase, timeoutMs: this.#retry.deadlineMs };
    const clock = this.#clock;
    const startedAt = clock.now();
    let attempts = 0;
    const fail = (reason: IdentityRecoveryFailureReason, error?: unknown): void => {
      diagnostics.identityRecoveryFailed(snapshot(), {
        ...attempt,
        reason,
        attempts,
        elapsedMs: Math.round(clock.now() - startedAt),
        ...transcriptCounts(error),
        ...(error === undefined ? {} : { error }),
      });
    };
    const canceled = (): never => {
      fail('canceled');
      const error = new Error('Claude provider turn identity resolution was canceled');
      error.name = 'AbortError';
      throw error;
    };
    if (!context.providerSessionId || !turn.correlationId) {
      fail('missing_required_identity');
      throw new TurnIdentityError(
        'Claude provider turn identity resolution requires session and correlation identities',
        'missing_required_identity',
      );
    }
    turn.phase = 'resolving_identity';
    diagnostics.identityRecoveryStarted(snapshot(), attempt);
    const deadline = startedAt + this.#retry.deadlineMs;
    let delayMs = this.#retry.initialDelayMs;
    for (;;) {
      if (signal.aborted) return canceled();
      // The echo may bind the turn while the transcript is still being written.
      if (turn.providerTurnId) return;
      attempts += 1;
      let identity: ResolvedTurnIdentity;
      try {
        identity = await this.#options.resolve(
          {
            providerSessionId: context.providerSessionId,
            cwd: context.cwd,
            correlationId: turn.correlationId,
            claudeConfigDir: context.claudeConfigDir,
          },
          signal,
        );
      } catch (error) {
        if (signal.aborted) return canceled();
        if (turn.providerTurnId) return;
        const reason = errorReason(error);
        const remainingMs = deadline - clock.now();
        if (reason === 'absent' && remainingMs > 0) {
          await clock.sleep(Math.min(delayMs, remainingMs), signal);
          delayMs = Math.min(delayMs * 2, this.#retry.maxDelayMs);
          continue;
        }
        if (reason === 'absent') {
          fail('transcript_absent_at_deadline', error);
          throw new TurnIdentityError(
            'Claude provider turn identity was not persisted before the acceptance deadline',
            'transcript_absent_at_deadline',
          );
        }
        fail(reason === 'ambiguous' ? 'transcript_ambiguous' : 'transcript_read_or_binding_failed', error);
        throw error;
      }
      if (signal.aborted) return canceled();
      if (!identity.providerTurnId || !this.#options.bind(turn, identity)) {
        fail('transcript_read_or_binding_failed');
        throw new TurnIdentityError(
          'Claude provider turn recovery returned inconsistent identity',
          'transcript_read_or_binding_failed',
        );
      }
      diagnostics.identityRecoveryResolved(snapshot(), {
        ...attempt,
        attempts,
        elapsedMs: Math.round(clock.now() - startedAt),
        providerTurnId: identity.providerTurnId,
        providerCheckpointMessageId: identity.providerCheckpointMessageId,
      });
      return;
    }
  }
}

/** The counts a transcript read reports with its failure (`TurnBindingResolutionError.details`); never content. */
function transcriptCounts(error: unknown): {
  transcriptMessageCount?: number;
  rootUserMessageCount?: number;
  matchingRootUserMessageCount?: number;
} {
  if (typeof error !== 'object' || error === null) return {};
  const details = (error as { details?: unknown }).details;
  if (typeof details !== 'object' || details === null) return {};
  const counts: Record<string, number> = {};
  for (const field of ['transcriptMessageCount', 'rootUserMessageCount', 'matchingRootUserMessageCount'] as const) {
    const value = (details as Record<string, unknown>)[field];
    if (typeof value === 'number' && Number.isSafeInteger(value)) counts[field] = value;
  }
  return counts;
}

function errorReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const reason = (error as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The shared flight, or an AbortError as soon as this caller's own signal aborts. */
function untilAborted(done: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(waitCanceled());
  return new Promise((resolve, reject) => {
    const leave = (): void => reject(waitCanceled());
    signal.addEventListener('abort', leave, { once: true });
    done.then(resolve, reject).finally(() => signal.removeEventListener('abort', leave));
  });
}

function waitCanceled(): Error {
  const error = new Error('Claude provider turn identity wait was canceled');
  error.name = 'AbortError';
  return error;
}
