import type { SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import type { EmitEvent } from '@outrigger/protocol';
import { type CancelTimer, type ContinuationTimers, nodeTimers } from '../continuation/timers.ts';
import { usageAfterResult } from './contextUsage.ts';
import type { QueryGeneration } from './queryGeneration.ts';
import type { SessionTitleReader } from './runtimeDefaults.ts';

export interface SettledSessionRefreshOptions {
  emit: EmitEvent;
  /** How long the session must stay without a new prompt after a root result before the refresh runs. */
  quietMs: number;
  readSessionTitle: SessionTitleReader;
  /** The session as it is now: the title read looks up its transcript. */
  session: () => { providerSessionId: string; cwd: string };
  timers?: ContinuationTimers;
}

interface SettledResult {
  readonly result: SDKResultMessage;
  readonly turnId: string;
  readonly generation: QueryGeneration;
}

/**
 * What Claude Code computes on request after a root result, the context-window snapshot
 * (`usage_updated`) and the session title (`session_title_updated`), read once the session has been
 * quiet for `quietMs` after the result. Read at once, the control request and the transcript read
 * overlapped the next prompt and made that turn about 12 ms slower (docs/sidecar.md). A prompt sent
 * within the quiet period skips the refresh: its own result schedules the next one, which reads the
 * newer state anyway. Only the latest refresh may publish its usage.
 */
export class SettledSessionRefresh {
  readonly #options: SettledSessionRefreshOptions;
  readonly #timers: ContinuationTimers;
  #cancelTimer: CancelTimer | undefined;
  #latest = 0;
  #title: string | undefined;
  #stopped = false;

  constructor(options: SettledSessionRefreshOptions) {
    this.#options = options;
    this.#timers = options.timers ?? nodeTimers;
  }

  /** A root result arrived: (re)starts the quiet period for its refresh. */
  afterResult(settled: SettledResult): void {
    if (this.#stopped) return;
    this.#cancelTimer?.();
    this.#cancelTimer = this.#timers.schedule(() => {
      this.#cancelTimer = undefined;
      void this.#refresh(settled);
    }, this.#options.quietMs);
  }

  /** A prompt went to Claude Code before the session was quiet: the waiting refresh is skipped. */
  onPrompt(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }

  /** The session closed: nothing is read or published any more. */
  stop(): void {
    this.#stopped = true;
    this.onPrompt();
  }

  async #refresh({ result, turnId, generation }: SettledResult): Promise<void> {
    const refresh = ++this.#latest;
    const query = generation.revoked ? undefined : generation.query;
    const [usage] = await Promise.all([usageAfterResult(query, result, turnId), this.#refreshTitle(generation)]);
    if (!this.#stopped && refresh === this.#latest) this.#options.emit('usage_updated', usage);
  }

  async #refreshTitle(generation: QueryGeneration): Promise<void> {
    const { providerSessionId, cwd } = this.#options.session();
    let title: string | undefined;
    try {
      title = await this.#options.readSessionTitle({
        providerSessionId,
        cwd,
        claudeConfigDir: generation.claudeConfigDir,
      });
    } catch {
      return;
    }
    const normalized = title?.replace(/\s+/g, ' ').trim();
    if (!normalized || normalized === this.#title || this.#stopped) return;
    this.#title = normalized;
    this.#options.emit('session_title_updated', { providerSessionId, title: normalized });
  }
}
