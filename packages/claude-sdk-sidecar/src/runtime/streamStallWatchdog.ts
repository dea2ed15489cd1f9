import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { type CancelTimer, type ContinuationTimers, nodeTimers } from '../continuation/timers.ts';
import { asRecord, systemSubtype } from '../shared/sdkMessages.ts';

export interface StreamStallWatchdogOptions {
  /** Silence after which `onStalled` is called, and again after each further period of it. */
  warningMs: number;
  /** Silence after which `onBudgetExceeded` is called, once; the watchdog then stops until `disarm`. */
  budgetMs: number;
  onStalled(silentMs: number): void;
  onBudgetExceeded(silentMs: number): void;
  timers?: ContinuationTimers;
}

/**
 * A turn whose API stream is open and silent (issue 11): Claude Code keeps such a request open for minutes
 * and no result ever comes. A stream is open from the request (`system/status: requesting`) or its
 * `message_start` until its `message_stop` (or an `api_retry`, which waits on purpose); only the stream's
 * own data (stream events, assistant messages) counts as activity. A running tool has no open stream, so a
 * Bash command that prints nothing for minutes is never a stall. Streams are told apart by their
 * `parent_tool_use_id` (a sub-agent's request is a stream of its own). One timer, re-armed only when it
 * fires, keeps the cost per message to a clock read.
 */
export class StreamStallWatchdog {
  readonly #options: StreamStallWatchdogOptions;
  readonly #timers: ContinuationTimers;
  readonly #open = new Set<string>();
  #lastActivity = 0;
  /** Warnings published since the last activity. */
  #warned = 0;
  #cancelTimer: CancelTimer | undefined;
  #exceeded = false;

  constructor(options: StreamStallWatchdogOptions) {
    this.#options = options;
    this.#timers = options.timers ?? nodeTimers;
  }

  /** True while an API stream of the turn is open. */
  get streaming(): boolean {
    return this.#open.size > 0;
  }

  /** Every SDK message while a turn is running. */
  observe(message: SDKMessage): void {
    const key = streamKey(message);
    switch (message.type) {
      case 'stream_event': {
        const type = asRecord(message.event)?.type;
        if (type === 'message_stop') this.#close(key);
        else if (type === 'message_start') this.#openStream(key);
        else if (this.#open.has(key)) this.#activity();
        return;
      }
      case 'assistant':
        if (this.#open.has(key)) this.#activity();
        return;
      case 'system': {
        const subtype = systemSubtype(message);
        if (subtype === 'status' && (message as Record<string, unknown>).status === 'requesting') this.#openStream(key);
        else if (subtype === 'api_retry') this.#close(key);
        return;
      }
      case 'result':
        if (key === ROOT) this.disarm();
        return;
    }
  }

  /** The turn ended (or its Query went away): nothing is open any more. */
  disarm(): void {
    this.#open.clear();
    this.#warned = 0;
    this.#exceeded = false;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }

  #openStream(key: string): void {
    this.#open.add(key);
    this.#activity();
    if (!this.#cancelTimer && !this.#exceeded) this.#schedule();
  }

  #close(key: string): void {
    this.#open.delete(key);
    this.#activity();
    if (this.#open.size === 0) {
      this.#cancelTimer?.();
      this.#cancelTimer = undefined;
    }
  }

  #activity(): void {
    this.#lastActivity = this.#timers.now();
    this.#warned = 0;
  }

  /** Next check: the next warning after the last activity, or the budget, whichever comes first. */
  #schedule(): void {
    const { warningMs, budgetMs } = this.#options;
    const due = this.#lastActivity + Math.min(warningMs * (this.#warned + 1), budgetMs);
    this.#cancelTimer = this.#timers.schedule(() => this.#check(), Math.max(0, due - this.#timers.now()));
  }

  #check(): void {
    this.#cancelTimer = undefined;
    if (this.#open.size === 0 || this.#exceeded) return;
    const silentMs = Math.round(this.#timers.now() - this.#lastActivity);
    if (silentMs >= this.#options.budgetMs) {
      this.#exceeded = true;
      this.#options.onBudgetExceeded(silentMs);
      return;
    }
    if (silentMs >= this.#options.warningMs * (this.#warned + 1)) {
      this.#warned += 1;
      this.#options.onStalled(silentMs);
    }
    this.#schedule();
  }
}

const ROOT = 'root';

function streamKey(message: SDKMessage): string {
  const parent = (message as { parent_tool_use_id?: unknown }).parent_tool_use_id;
  return typeof parent === 'string' && parent !== '' ? parent : ROOT;
}
