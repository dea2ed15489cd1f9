import type { CancelTimer, ContinuationTimers } from './timers.ts';

interface Scheduled {
  readonly at: number;
  readonly callback: () => void;
  canceled: boolean;
}

/** Test timers: time moves only when the test advances it. */
export class ManualTimers implements ContinuationTimers {
  #now = 0;
  #scheduled: Scheduled[] = [];

  now(): number {
    return this.#now;
  }

  schedule(callback: () => void, ms: number): CancelTimer {
    const entry: Scheduled = { at: this.#now + ms, callback, canceled: false };
    this.#scheduled.push(entry);
    return () => {
      entry.canceled = true;
    };
  }

  /** Timers still waiting to fire. */
  get pending(): number {
    return this.#scheduled.filter((entry) => !entry.canceled).length;
  }

  /** Moves time forward, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = this.#scheduled
        .filter((entry) => !entry.canceled && entry.at <= until)
        .sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      due.canceled = true;
      this.#now = due.at;
      due.callback();
    }
    this.#now = until;
    this.#scheduled = this.#scheduled.filter((entry) => !entry.canceled);
  }
}
