/**
 * Runs tasks one at a time, in the order they were queued. One per session: its commands and its
 * sidecar events are applied in order without blocking any other session. A failing task fails only
 * its own caller; the next one still runs.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;
  /** Tasks queued since the queue was made: tells whether anything was queued after a given task. */
  #queued = 0;
  /** The batch task queued last, while it has not started. */
  #open:
    | { readonly items: unknown[]; readonly apply: unknown; readonly at: number; readonly done: Promise<void> }
    | undefined;

  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.#pending += 1;
    this.#queued += 1;
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => this.#done(),
      () => this.#done(),
    );
    return result;
  }

  /**
   * Queues `item` for `apply`, together with others: while the task queued last is a batch of the same `apply`
   * that has not started, the item joins it, otherwise a new batch task is queued. Nothing queued after a batch
   * ever runs before an item of it, so a batch is what consecutive tasks for its items would be, run back to
   * back. Items that arrive while a batch runs start the next one, so a busy queue gathers them (a session's
   * sidecar events of one stdout chunk, and those that came while the previous ones were committed).
   * Resolves (or rejects) with the batch's task.
   */
  runBatched<T>(item: T, apply: (items: readonly T[]) => Promise<void>): Promise<void> {
    const open = this.#open;
    if (open !== undefined && open.apply === apply && open.at === this.#queued) {
      open.items.push(item);
      return open.done;
    }
    const items: T[] = [item];
    const done = this.run(() => {
      if (this.#open?.items === items) this.#open = undefined;
      return apply(items);
    });
    this.#open = { items, apply, at: this.#queued, done };
    return done;
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
