/** Cancels a scheduled callback; a no-op once it ran. */
export type CancelTimer = () => void;

/** The clock and timers of the continuation state machine, injectable so tests control time. */
export interface ContinuationTimers {
  now(): number;
  schedule(callback: () => void, ms: number): CancelTimer;
}

/** Real timers. They never keep the sidecar alive on their own: stdin does that. */
export const nodeTimers: ContinuationTimers = {
  now: () => performance.now(),
  schedule(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
