import type { InteractiveResult } from '@outrigger/protocol';
import { canonicalJson } from './canonicalJson.ts';

/** What the host answered to one approval or question. */
export interface InteractiveSubmission {
  readonly action: string;
  readonly optionId: string;
  readonly payload: Record<string, unknown>;
}

/** Why a pending request ended without an answer (cancel, close, or the SDK aborting the tool use). */
export class InteractionSupersededError extends Error {
  override readonly name = 'InteractionSupersededError';
}

/** The reason a request ends with when the SDK aborts its tool use. */
export const TOOL_USE_ABORTED = 'Tool use aborted';

const TERMINAL_INTERACTION_CAPACITY = 1024;

interface PendingInteraction {
  resolve(submission: InteractiveSubmission): void;
  reject(error: InteractionSupersededError): void;
  detachAbort(): void;
}

/** `submission` is the canonical JSON of the accepted answer; undefined if it could not be canonicalised. */
type TerminalInteraction =
  | { readonly state: 'answered'; readonly submission: string | undefined }
  | { readonly state: 'superseded' };

/**
 * Pending approvals and questions keyed by (turnId, requestId), plus a bounded record of how each one
 * ended, so `submit_interactive` is idempotent: an identical replay reports `answered` without touching
 * the SDK again, a different one reports `conflict`.
 */
export class InteractiveRegistry {
  readonly #pending = new Map<string, PendingInteraction>();
  readonly #terminal = new Map<string, TerminalInteraction>();
  readonly #capacity: number;

  constructor(options: { readonly terminalCapacity?: number } = {}) {
    this.#capacity = options.terminalCapacity ?? TERMINAL_INTERACTION_CAPACITY;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Opens a request and returns the promise the SDK callback awaits. It resolves with the first accepted
   * submission, or rejects with InteractionSupersededError on `rejectAll` or when `signal` aborts.
   */
  register(turnId: string, requestId: string, signal?: AbortSignal): Promise<InteractiveSubmission> {
    const key = interactionKey(turnId, requestId);
    if (this.#pending.has(key) || this.#terminal.has(key)) {
      return Promise.reject(new Error(`interactive request ${requestId.trim()} is already registered`));
    }
    if (signal?.aborted) {
      this.#settle(key, { state: 'superseded' });
      return Promise.reject(new InteractionSupersededError(TOOL_USE_ABORTED));
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => this.#supersede(key, new InteractionSupersededError(TOOL_USE_ABORTED));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(key, {
        resolve,
        reject,
        detachAbort: () => signal?.removeEventListener('abort', onAbort),
      });
    });
  }

  submit(
    turnId: string,
    requestId: string,
    action: string,
    optionId: string,
    payload: Record<string, unknown>,
  ): InteractiveResult {
    const key = interactionKey(turnId, requestId);
    const submission = canonicalSubmission(turnId, requestId, action, optionId, payload);
    const terminal = this.#terminal.get(key);
    if (terminal) return replayResult(terminal, submission);
    const pending = this.#pending.get(key);
    if (!pending) return { disposition: 'unknown' };
    // Recorded before resolving, so a concurrent duplicate sees the terminal entry and never resolves twice.
    this.#pending.delete(key);
    pending.detachAbort();
    this.#settle(key, { state: 'answered', submission });
    pending.resolve({ action, optionId, payload });
    return { disposition: 'answered', replayed: false };
  }

  /** Reports, without changing anything, how the request stands and whether this submission is its answer. */
  disposition(
    turnId: string,
    requestId: string,
    action: string,
    optionId: string,
    payload: Record<string, unknown>,
  ): InteractiveResult {
    const key = interactionKey(turnId, requestId);
    const terminal = this.#terminal.get(key);
    if (terminal) return replayResult(terminal, canonicalSubmission(turnId, requestId, action, optionId, payload));
    if (this.#pending.has(key)) return { disposition: 'pending' };
    return { disposition: 'unknown' };
  }

  /** Ends every pending request as superseded (cancel, close); their SDK callbacks reject with `reason`. */
  rejectAll(reason: string): void {
    for (const key of [...this.#pending.keys()]) this.#supersede(key, new InteractionSupersededError(reason));
  }

  #supersede(key: string, error: InteractionSupersededError): void {
    const pending = this.#pending.get(key);
    if (!pending) return;
    this.#pending.delete(key);
    pending.detachAbort();
    this.#settle(key, { state: 'superseded' });
    pending.reject(error);
  }

  #settle(key: string, terminal: TerminalInteraction): void {
    this.#terminal.set(key, terminal);
    while (this.#terminal.size > this.#capacity) {
      const oldest = this.#terminal.keys().next().value;
      if (oldest === undefined) break;
      this.#terminal.delete(oldest);
    }
  }
}

function interactionKey(turnId: string, requestId: string): string {
  return `${turnId.trim()}\u0000${requestId.trim()}`;
}

function canonicalSubmission(
  turnId: string,
  requestId: string,
  action: string,
  optionId: string,
  payload: Record<string, unknown>,
): string | undefined {
  return canonicalJson({ turnId: turnId.trim(), requestId: requestId.trim(), action, optionId, payload });
}

/**
 * How a request that already ended answers a submission: superseded stays superseded, an answered one
 * matches only an identical submission. Two submissions that cannot be canonicalised never match.
 */
function replayResult(terminal: TerminalInteraction, candidate: string | undefined): InteractiveResult {
  if (terminal.state === 'superseded') return { disposition: 'superseded', replayed: true };
  return terminal.submission !== undefined && terminal.submission === candidate
    ? { disposition: 'answered', replayed: true }
    : { disposition: 'conflict' };
}
