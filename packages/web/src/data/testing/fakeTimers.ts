import type { Timers } from '../streamConnection.ts';

/** Timers driven by the test: `advance(ms)` fires whatever falls due, in order. */
export class FakeTimers implements Timers {
  now = 0;
  #next = 1;
  readonly #pending = new Map<number, { at: number; callback: () => void }>();

  setTimeout = (callback: () => void, ms: number): number => {
    const handle = this.#next++;
    this.#pending.set(handle, { at: this.now + ms, callback });
    return handle;
  };

  clearTimeout = (handle: unknown): void => {
    this.#pending.delete(handle as number);
  };

  async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    while (true) {
      const due = [...this.#pending.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.#pending.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
      await settle();
    }
    this.now = until;
    await settle();
  }
}

/** Lets pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
