/**
 * Runs tasks one at a time per key and concurrently across keys: a slow request of one session never
 * delays another session's requests. A preemptive task (a cancel) still waits for the ordered tasks queued
 * before it, and ordered tasks queued after it wait for it, but it never waits for an earlier preemptive
 * task, so a second cancel is answered while the first is still shutting its Query down.
 */
export class KeyedSerialQueue {
  readonly #lanes = new Map<string, { all: Promise<unknown>; ordered: Promise<unknown> }>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const lane = this.#lanes.get(key);
    const result = (lane?.all ?? Promise.resolve()).then(task, task);
    const settled = quiet(result);
    this.#lanes.set(key, { all: settled, ordered: settled });
    this.#forgetWhenIdle(key, settled);
    return result;
  }

  runPreemptive<T>(key: string, task: () => Promise<T>): Promise<T> {
    const lane = this.#lanes.get(key);
    const ordered = lane?.ordered ?? Promise.resolve();
    const result = ordered.then(task, task);
    const settled = quiet(result);
    const all = Promise.all([lane?.all, settled]);
    this.#lanes.set(key, { all, ordered });
    this.#forgetWhenIdle(key, all);
    return result;
  }

  /** Resolves once every task queued so far, for every key, has finished. */
  async drained(): Promise<void> {
    while (this.#lanes.size > 0) await Promise.all([...this.#lanes.values()].map((lane) => lane.all));
  }

  #forgetWhenIdle(key: string, tail: Promise<unknown>): void {
    void tail.then(() => {
      if (this.#lanes.get(key)?.all === tail) this.#lanes.delete(key);
    });
  }
}

function quiet(promise: Promise<unknown>): Promise<void> {
  return promise.then(
    () => undefined,
    () => undefined,
  );
}
