import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import {
  killSurvivors,
  type MarkedProcess,
  markedProcesses,
  SESSION_MARK_VARIABLE,
  survivors,
} from '../sidecar/processMarks.ts';

/** How long what a retired Claude Code ran gets to end by itself before it is killed. */
export const REAP_GRACE_MS = 1_000;

/**
 * The processes one session's Claude Code started, found by the mark its `start` gave them
 * (`SESSION_MARK_VARIABLE`): a tool Claude Code ran in a process group of its own outlives a Claude Code
 * that was retired (cancel, close) or died, and is killed here.
 */
export class ToolProcesses {
  readonly #sessionId: string;
  readonly #logger: RuntimeLogger;

  constructor(sessionId: string, logger: RuntimeLogger) {
    this.#sessionId = sessionId;
    this.#logger = logger;
  }

  /** The session's marked processes (its Claude Code and the tools it runs), as of now. */
  snapshot(): MarkedProcess[] {
    return markedProcesses(SESSION_MARK_VARIABLE, this.#sessionId);
  }

  /**
   * After a cancel or a close retired the session's Claude Code: what it ran before and still runs (a tool
   * Claude Code had no time to stop) is killed. The retired Claude Code is among `before` and may still be
   * exiting, writing its transcript as it goes (killed then, the next turn's resume finds no conversation):
   * what ends by itself within the grace is left alone.
   */
  reapAfterGrace(before: readonly MarkedProcess[], reason: string): void {
    void this.#reapAfterGrace(before, reason);
  }

  /**
   * Claude Code died: nothing with the session's mark has a Claude Code above it any more, and none can start
   * before the session's next exec, which waits behind this on its queue. Killed at once, and again for what a
   * dying shell forked meanwhile.
   */
  async reapOrphans(): Promise<void> {
    let count = 0;
    for (let pass = 0; pass < 3; pass += 1) {
      const killed = killSurvivors(this.snapshot());
      count += killed;
      if (killed === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (count === 0) return;
    this.#logger.warn(
      { event: 'session.tool_processes_reaped', sessionId: this.#sessionId, reason: 'claude_code_exited', count },
      'killed processes the dead Claude Code left running',
    );
  }

  async #reapAfterGrace(before: readonly MarkedProcess[], reason: string): Promise<void> {
    const deadline = Date.now() + REAP_GRACE_MS;
    while (Date.now() < deadline && survivors(before).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const count = killSurvivors(before);
    if (count === 0) return;
    this.#logger.warn(
      { event: 'session.tool_processes_reaped', sessionId: this.#sessionId, reason, count },
      'killed processes the canceled Claude Code left running',
    );
  }
}
