/**
 * Runs tasks one at a time, in the order they were queued. One per session: its commands and its
 * sidecar events are applied in order without blocking any other session. A failing task fails only
 * its own caller; the next one still runs.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.#pending += 1;
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => this.#done(),
      () => this.#done(),
    );
    return result;
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }

  /** Resolves once everything queued before this call has run. */
  drained(): Promise<void> {
    return this.run(() => undefined);
  }

  #done(): void {
    this.#pending -= 1;
  }
}
