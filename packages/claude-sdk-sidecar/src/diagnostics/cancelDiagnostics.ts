import {
  type DiagnosticPayload,
  type DiagnosticValue,
  describeErrorForDiagnostic,
  writeDiagnosticLine,
} from './diagnosticLine.ts';

export const CANCEL_DIAGNOSTIC_PREFIX = 'CLAUDE_CODE_CANCEL_DIAGNOSTIC';

export interface CancelDiagnosticIds {
  readonly requestId: string;
  readonly agentSessionId: string;
  readonly providerSessionId: string;
  /** The requested Turn id; empty when the request targets the active turn. */
  readonly turnId: string;
}

export interface CancelOutcome {
  readonly canceled: boolean;
  readonly disposition: string;
  readonly dispatchPhase: string;
  readonly turnId: string;
  readonly providerTurnId: string;
}

export type QueryTerminationMode = 'interrupt_acknowledged' | 'transport_closed';

/**
 * One step of what a cancel does to a Query generation, reported by the generation as it happens: the
 * withdrawal of a prompt still queued in Claude Code, or the generation's bounded shutdown.
 * Errors are passed raw; the writer decides what of them may be logged.
 */
export type QueryShutdownStage =
  | { readonly stage: 'prompt_withdraw_started'; readonly generationId: number; readonly timeoutMs: number }
  | {
      readonly stage: 'prompt_withdraw_answered';
      readonly generationId: number;
      readonly durationMs: number;
      /** Claude Code dropped the prompt; false when it had already started it. */
      readonly withdrawn: boolean;
    }
  | {
      readonly stage: 'prompt_withdraw_failed';
      readonly generationId: number;
      readonly durationMs: number;
      readonly error: unknown;
    }
  | {
      readonly stage: 'prompt_withdraw_timed_out';
      readonly generationId: number;
      readonly durationMs: number;
      readonly timeoutMs: number;
    }
  | {
      readonly stage: 'shutdown_started';
      readonly generationId: number;
      readonly interrupt: boolean;
      readonly interruptTimeoutMs: number;
      readonly drainTimeoutMs: number;
      readonly hasQuery: boolean;
      readonly hasConsumption: boolean;
    }
  | {
      readonly stage: 'interrupt_started' | 'query_close_started' | 'consumption_wait_started';
      readonly generationId: number;
    }
  | {
      readonly stage: 'interrupt_succeeded' | 'query_close_succeeded' | 'consumption_settled';
      readonly generationId: number;
      readonly durationMs: number;
    }
  | {
      readonly stage: 'interrupt_failed' | 'query_close_failed';
      readonly generationId: number;
      readonly durationMs: number;
      readonly error: unknown;
    }
  | {
      readonly stage: 'interrupt_timed_out' | 'consumption_timed_out';
      readonly generationId: number;
      readonly durationMs: number;
      readonly timeoutMs: number;
    }
  | {
      readonly stage: 'shutdown_succeeded';
      readonly generationId: number;
      readonly durationMs: number;
      readonly terminationMode: QueryTerminationMode;
    };

export type QueryShutdownObserver = (stage: QueryShutdownStage) => void;

const shutdownFields = [
  'generationId',
  'interrupt',
  'interruptTimeoutMs',
  'drainTimeoutMs',
  'hasQuery',
  'hasConsumption',
  'durationMs',
  'timeoutMs',
  'terminationMode',
  'withdrawn',
] as const;

export interface CancelDiagnosticsOptions {
  readonly now?: () => number;
  readonly pid?: number;
}

/**
 * The `CLAUDE_CODE_CANCEL_DIAGNOSTIC` trail of one cancel request: received, the withdrawal of a queued
 * prompt and every shutdown stage of the Query generation it retires, then succeeded or failed. Create it when the request arrives: each record
 * carries the request's ids and the milliseconds since then (`elapsedMs`).
 */
export class CancelDiagnostics {
  readonly #ids: CancelDiagnosticIds;
  readonly #now: () => number;
  readonly #pid: number;
  readonly #receivedAt: number;
  #turnId: string;

  constructor(ids: CancelDiagnosticIds, options: CancelDiagnosticsOptions = {}) {
    this.#ids = ids;
    this.#turnId = ids.turnId;
    this.#now = options.now ?? performance.now.bind(performance);
    this.#pid = options.pid ?? process.pid;
    this.#receivedAt = this.#now();
  }

  cancelReceived(fields: { readonly interruptTimeoutMs: number; readonly drainTimeoutMs: number }): void {
    this.#write('cancel_received', {
      interruptTimeoutMs: fields.interruptTimeoutMs,
      drainTimeoutMs: fields.drainTimeoutMs,
    });
  }

  cancelSucceeded(outcome: CancelOutcome): void {
    // A request without a turn id targets the active turn; later records name the turn it resolved to.
    if (outcome.turnId !== '') this.#turnId = outcome.turnId;
    this.#write('cancel_succeeded', {
      durationMs: this.#elapsed(),
      canceled: outcome.canceled,
      disposition: outcome.disposition,
      dispatchPhase: outcome.dispatchPhase,
      providerTurnId: outcome.providerTurnId,
    });
  }

  /** `errorStage` is the stage an error response names (e.g. `consumption` after a drain timeout). */
  cancelFailed(error: unknown, errorStage?: string): void {
    this.#write('cancel_failed', {
      durationMs: this.#elapsed(),
      errorStage,
      error: describeErrorForDiagnostic(error),
    });
  }

  /** The observer to hand to the generation's shutdown. Copies only the allow-listed stage fields. */
  readonly observeShutdown: QueryShutdownObserver = (event) => {
    const source: Readonly<Record<string, unknown>> = event;
    const record: Record<string, DiagnosticValue> = {};
    for (const field of shutdownFields) {
      const value = source[field];
      if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') record[field] = value;
    }
    if ('error' in event) record.error = describeErrorForDiagnostic(event.error);
    this.#write(event.stage, record);
  };

  #elapsed(): number {
    return Math.round(this.#now() - this.#receivedAt);
  }

  #write(stage: string, fields: DiagnosticPayload): void {
    writeDiagnosticLine(CANCEL_DIAGNOSTIC_PREFIX, {
      stage,
      sidecarPid: this.#pid,
      requestId: this.#ids.requestId,
      agentSessionId: this.#ids.agentSessionId,
      providerSessionId: this.#ids.providerSessionId,
      turnId: this.#turnId,
      ...fields,
      elapsedMs: this.#elapsed(),
    });
  }
}
