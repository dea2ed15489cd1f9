import type { SDKMessage, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { type EmitEvent, STREAM_STALLED_CODE } from '@outrigger/protocol';
import type { QueryGeneration } from './queryGeneration.ts';
import { StreamStallWatchdog } from './streamStallWatchdog.ts';
import type { RuntimeTurn, TurnTerminal } from './turnLifecycle.ts';

/** What the guard needs from the session whose turns it watches. */
export interface StreamStallHost {
  readonly emit: EmitEvent;
  /** The turn the open stream belongs to (the active one, or the dispatched one about to start). */
  streamingTurn(): RuntimeTurn | undefined;
  currentGeneration(): QueryGeneration | undefined;
  /** Takes the generation out of service, ending the stalled turn with `terminal` and the turns behind it. */
  detach(generation: QueryGeneration, terminal: TurnTerminal): void;
}

export interface StreamStallGuardOptions {
  warningMs: number;
  budgetMs: number;
  /** How long the stop's interrupt, and then the interrupted result, may take before the Query is dropped. */
  interruptTimeoutMs: number;
}

/**
 * The stall budget of issue 11. While a turn's API stream is open and silent it publishes
 * `turn_stalled {turnId, silentMs}` every warning period; at the budget it interrupts the Query (never
 * retrying) and the turn ends with exactly one `turn_failed {code: 'stream_stalled'}`: through the
 * interrupted result when Claude Code acknowledges the interrupt (the Query, and any turn queued behind,
 * goes on), or by taking the Query out of service when it does not (the next prompt starts a fresh one).
 */
export class StreamStallGuard {
  readonly #host: StreamStallHost;
  readonly #options: StreamStallGuardOptions;
  readonly #watchdog: StreamStallWatchdog;
  /** The turn being stopped for a stall, and the terminal it ends with. */
  #stopping: { readonly turn: RuntimeTurn; readonly terminal: TurnTerminal } | undefined;

  constructor(host: StreamStallHost, options: StreamStallGuardOptions) {
    this.#host = host;
    this.#options = options;
    this.#watchdog = new StreamStallWatchdog({
      warningMs: options.warningMs,
      budgetMs: options.budgetMs,
      onStalled: (silentMs) => {
        const turn = host.streamingTurn();
        if (turn) host.emit('turn_stalled', { turnId: turn.turnId, silentMs });
      },
      onBudgetExceeded: (silentMs) => void this.#stop(silentMs),
    });
  }

  /** Every SDK message while a turn is running. */
  observe(message: SDKMessage): void {
    this.#watchdog.observe(message);
  }

  /** The turn ended some other way, or its Query went away. */
  disarm(): void {
    this.#watchdog.disarm();
    this.#stopping = undefined;
  }

  /**
   * The terminal a root result settles its turn with when the turn is being stopped for a stall: the
   * interrupted result of a stalled turn fails it with `stream_stalled`. Undefined otherwise (a result that
   * succeeded after all keeps its own terminal).
   */
  terminalFor(turn: RuntimeTurn, result: SDKResultMessage): TurnTerminal | undefined {
    const stopping = this.#stopping;
    if (stopping?.turn !== turn || result.subtype === 'success') return undefined;
    return stopping.terminal;
  }

  async #stop(silentMs: number): Promise<void> {
    const turn = this.#host.streamingTurn();
    const generation = this.#host.currentGeneration();
    if (!turn || !generation || generation.revoked) return;
    const terminal: TurnTerminal = {
      type: 'turn_failed',
      error: `Claude API stream stalled: no data for ${silentMs}ms; the turn was stopped`,
      code: STREAM_STALLED_CODE,
    };
    this.#stopping = { turn, terminal };
    const { interruptTimeoutMs } = this.#options;
    const outcome = await generation.interruptWithin(interruptTimeoutMs);
    if (turn.settled || this.#stopping?.turn !== turn) return;
    if (outcome.kind === 'fulfilled') {
      // Claude Code now sends the interrupted result, which `terminalFor` maps; it must not take long.
      await new Promise((resolve) => setTimeout(resolve, interruptTimeoutMs).unref());
      if (turn.settled || this.#stopping?.turn !== turn) return;
    }
    if (this.#host.currentGeneration() === generation) this.#host.detach(generation, terminal);
  }
}
