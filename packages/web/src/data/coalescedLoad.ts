import { realTimers, type Timers } from './streamConnection.ts';

/**
 * A load from the host that events ask to repeat: never two at once (their answers could land out of
 * order and an older one win), and one asked for while another runs runs once after it (the running one
 * may have been answered before the event's change). `soon` gathers a burst of asks (a turn's tool
 * results) into one load.
 */
export class CoalescedLoad {
  readonly #load: () => Promise<void>;
  readonly #timers: Timers;
  readonly #delayMs: number;
  #running: Promise<void> | undefined;
  #again = false;
  #timer: unknown;
  #stopped = false;

  /** `load` says its own failures (a store shows them); a failure here only ends that round. */
  constructor(load: () => Promise<void>, options: { timers?: Timers; delayMs?: number } = {}) {
    this.#load = load;
    this.#timers = options.timers ?? realTimers;
    this.#delayMs = options.delayMs ?? 300;
  }

  /** Loads now, or once more after the load that runs; settles when what was asked for has loaded. */
  now(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#cancelTimer();
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Loads after a short quiet spell; asks meanwhile add nothing. */
  soon(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      void this.now();
    }, this.#delayMs);
  }

  stop(): void {
    this.#stopped = true;
    this.#cancelTimer();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      await this.#load().catch(() => undefined);
    } while (this.#again && !this.#stopped);
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return;
    this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
