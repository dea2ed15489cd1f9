import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { isPositiveSafeInteger } from '@outrigger/protocol';
import type { QueryShutdownObserver, QueryTerminationMode } from '../diagnostics/cancelDiagnostics.ts';
import { SidecarError } from '../diagnostics/diagnosticLine.ts';
import type { ClaudeQuery } from './claudeQuery.ts';
import type { PromptQueue } from './promptQueue.ts';

const DEFAULT_INTERRUPT_TIMEOUT_MS = 10_000;
const DEFAULT_DRAIN_TIMEOUT_MS = 8_000;

export interface ShutdownOptions {
  interrupt: boolean;
  interruptTimeoutMs?: number;
  drainTimeoutMs?: number;
  observe?: QueryShutdownObserver;
}

export class QueryShutdownTimeoutError extends SidecarError {
  readonly stage = 'consumption';
  constructor(timeoutMs: number) {
    super(`Claude SDK Query consumption timed out after ${timeoutMs}ms`);
    this.name = 'QueryShutdownTimeoutError';
  }
}

/** Called for every SDK message of a live generation, one at a time, in stream order. */
export type MessageConsumer = (message: SDKMessage, generation: QueryGeneration) => Promise<void> | void;

/** Called once when a generation's stream ends or fails on its own (never after `revoke()`). */
export type GenerationEndListener = (generation: QueryGeneration, failure: unknown) => void;

const revokedSignal = Symbol('revoked');

/**
 * One SDK `query()` and everything it owns: its prompt queue and the loop consuming its messages.
 * Revoking fences the generation at once: no message is routed afterwards, so a retired Query can never
 * leak output into a later turn.
 */
export class QueryGeneration {
  readonly id: number;
  readonly query: ClaudeQuery;
  readonly prompts: PromptQueue;
  /** CLAUDE_CONFIG_DIR of the child, for transcript reads that must see what it wrote. */
  readonly claudeConfigDir: string | undefined;
  #revoked = false;
  /** Ends the read in flight with `revokedSignal`, so a revoked generation never waits for its Query. */
  #abandonRead: (() => void) | undefined;
  #consumption: Promise<void> | undefined;

  constructor(init: { id: number; query: ClaudeQuery; prompts: PromptQueue; claudeConfigDir?: string }) {
    this.id = init.id;
    this.query = init.query;
    this.prompts = init.prompts;
    this.claudeConfigDir = init.claudeConfigDir;
  }

  get revoked(): boolean {
    return this.#revoked;
  }

  startConsuming(consume: MessageConsumer, onEnd: GenerationEndListener): void {
    if (this.#consumption || this.#revoked) return;
    this.#consumption = this.#consume(consume, onEnd);
  }

  /** Stops routing and prompting immediately; the Query itself is left to `shutdown`. */
  revoke(): void {
    if (this.#revoked) return;
    this.#revoked = true;
    this.prompts.close();
    this.#abandonRead?.();
    this.#abandonRead = undefined;
  }

  /**
   * Bounded shutdown: revoke, optionally interrupt within its budget, always close the transport (the SDK's
   * bare close waits a 2 s grace before SIGTERM; after an acknowledged interrupt the child exits quickly),
   * then wait for the consumer to drain within its budget.
   */
  async shutdown(options: ShutdownOptions): Promise<{ terminationMode: QueryTerminationMode }> {
    const interruptTimeoutMs = positiveOr(options.interruptTimeoutMs, DEFAULT_INTERRUPT_TIMEOUT_MS);
    const drainTimeoutMs = positiveOr(options.drainTimeoutMs, DEFAULT_DRAIN_TIMEOUT_MS);
    const observe = safely(options.observe);
    const generationId = this.id;
    const shutdownStartedAt = performance.now();
    this.revoke();
    observe({
      stage: 'shutdown_started',
      generationId,
      interrupt: options.interrupt,
      interruptTimeoutMs,
      drainTimeoutMs,
      hasQuery: true,
      hasConsumption: this.#consumption !== undefined,
    });

    let terminationMode: QueryTerminationMode = 'transport_closed';
    if (options.interrupt && this.query.interrupt) {
      observe({ stage: 'interrupt_started', generationId });
      const startedAt = performance.now();
      const outcome = await this.interruptWithin(interruptTimeoutMs);
      const durationMs = elapsed(startedAt);
      if (outcome.kind === 'fulfilled') {
        terminationMode = 'interrupt_acknowledged';
        observe({ stage: 'interrupt_succeeded', generationId, durationMs });
      } else if (outcome.kind === 'rejected') {
        observe({ stage: 'interrupt_failed', generationId, durationMs, error: outcome.error });
      } else {
        observe({ stage: 'interrupt_timed_out', generationId, durationMs, timeoutMs: interruptTimeoutMs });
      }
    }

    observe({ stage: 'query_close_started', generationId });
    const closeStartedAt = performance.now();
    try {
      this.query.close?.();
    } catch (error) {
      observe({ stage: 'query_close_failed', generationId, durationMs: elapsed(closeStartedAt), error });
      throw error;
    }
    observe({ stage: 'query_close_succeeded', generationId, durationMs: elapsed(closeStartedAt) });

    observe({ stage: 'consumption_wait_started', generationId });
    const waitStartedAt = performance.now();
    const drained = await settleWithin(this.#consumption ?? Promise.resolve(), drainTimeoutMs);
    if (drained.kind === 'timed_out') {
      observe({
        stage: 'consumption_timed_out',
        generationId,
        durationMs: elapsed(waitStartedAt),
        timeoutMs: drainTimeoutMs,
      });
      throw new QueryShutdownTimeoutError(drainTimeoutMs);
    }
    if (drained.kind === 'rejected') throw drained.error;
    observe({ stage: 'consumption_settled', generationId, durationMs: elapsed(waitStartedAt) });
    observe({ stage: 'shutdown_succeeded', generationId, durationMs: elapsed(shutdownStartedAt), terminationMode });
    return { terminationMode };
  }

  /**
   * Asks Claude Code to drop a prompt of this generation that is still waiting in its queue, within
   * `timeoutMs`; nothing else happens to the Query. False unless Claude Code answered that it dropped it:
   * the prompt had started, the Query cannot withdraw, refused, or did not answer in time.
   */
  async withdrawPrompt(
    uuid: string,
    options: { timeoutMs: number; observe?: QueryShutdownObserver },
  ): Promise<boolean> {
    const cancelAsyncMessage = this.query.cancelAsyncMessage;
    if (this.#revoked || !cancelAsyncMessage) return false;
    const observe = safely(options.observe);
    const generationId = this.id;
    const startedAt = performance.now();
    observe({ stage: 'prompt_withdraw_started', generationId, timeoutMs: options.timeoutMs });
    let withdrawn = false;
    const outcome = await settleWithin(
      cancelAsyncMessage.call(this.query, uuid).then((answer) => {
        withdrawn = answer === true;
      }),
      options.timeoutMs,
    );
    const durationMs = elapsed(startedAt);
    if (outcome.kind === 'fulfilled') {
      observe({ stage: 'prompt_withdraw_answered', generationId, durationMs, withdrawn });
      return withdrawn;
    }
    if (outcome.kind === 'rejected')
      observe({ stage: 'prompt_withdraw_failed', generationId, durationMs, error: outcome.error });
    else observe({ stage: 'prompt_withdraw_timed_out', generationId, durationMs, timeoutMs: options.timeoutMs });
    return false;
  }

  /**
   * Asks Claude Code to interrupt what it is doing and waits at most `timeoutMs` for the acknowledgement,
   * or until `signal` aborts. Nothing else happens to the Query: a caller that needs it gone closes it.
   */
  interruptWithin(timeoutMs: number, signal?: AbortSignal): Promise<InterruptOutcome> {
    if (!this.query.interrupt) return Promise.resolve({ kind: 'rejected', error: new Error('interrupt unsupported') });
    return settleWithin(this.query.interrupt(), timeoutMs, signal);
  }

  async #consume(consume: MessageConsumer, onEnd: GenerationEndListener): Promise<void> {
    const iterator = this.query[Symbol.asyncIterator]();
    let failure: unknown;
    try {
      for (;;) {
        const next = await this.#nextOrRevoked(iterator);
        if (next === revokedSignal || this.#revoked) return;
        if (next.done) break;
        await consume(next.value, this);
        if (this.#revoked) return;
      }
    } catch (error) {
      if (this.#revoked) return;
      failure = error;
    }
    onEnd(this, failure);
  }

  /**
   * The next message, or `revokedSignal` once the generation is revoked. A fresh promise per read: racing
   * every read against one long-lived promise would pile a reaction onto it per message for as long as the
   * generation serves turns.
   */
  #nextOrRevoked(iterator: AsyncIterator<SDKMessage>): Promise<IteratorResult<SDKMessage> | typeof revokedSignal> {
    if (this.#revoked) return Promise.resolve(revokedSignal);
    return new Promise((resolve, reject) => {
      this.#abandonRead = () => resolve(revokedSignal);
      iterator.next().then(resolve, reject);
    });
  }
}

type Settled = { kind: 'fulfilled' } | { kind: 'rejected'; error: unknown } | { kind: 'timed_out' };

/** How an interrupt went: acknowledged, refused, not acknowledged in time, or given up by its caller. */
export type InterruptOutcome = Settled | { kind: 'aborted' };

async function settleWithin(
  promise: Promise<unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<InterruptOutcome> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<InterruptOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timed_out' }), timeoutMs);
    if (!signal) return;
    onAbort = () => resolve({ kind: 'aborted' });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      promise.then(
        (): Settled => ({ kind: 'fulfilled' }),
        (error: unknown): Settled => ({ kind: 'rejected', error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** An observer must never change the outcome of what it observes. */
function safely(observe: QueryShutdownObserver | undefined): QueryShutdownObserver {
  return (event) => {
    try {
      observe?.(event);
    } catch {
      // Ignored: a diagnostic that fails is only a diagnostic lost.
    }
  };
}

function positiveOr(value: number | undefined, fallback: number): number {
  return isPositiveSafeInteger(value) ? value : fallback;
}

function elapsed(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}
