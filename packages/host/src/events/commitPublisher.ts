import type { CommitResult, HostStore, WriteUnit } from '../store/hostStore.ts';
import type { EventHub } from './eventHub.ts';

export interface CommitPublisherOptions {
  /**
   * Group commit: units asked for within one turn of the event loop go to the store as ONE
   * transaction (`commitMany`), then are published in order. A failing group is retried unit by unit,
   * so only the unit at fault fails. Default true.
   */
  readonly groupCommit?: boolean;
}

/** Units that commit together or not at all, and whoever waits for them. */
interface Pending {
  readonly units: readonly WriteUnit[];
  readonly resolve: (results: CommitResult[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * *Persist, then publish*: the one way the host writes. `commit` resolves after the
 * store committed the unit and the hub was handed exactly the events the store returned, in commit
 * order; when the store refuses, nothing is published and the promise rejects with its `StoreError`.
 */
export class CommitPublisher {
  readonly #store: HostStore;
  readonly #hub: EventHub;
  readonly #group: boolean;
  #pending: Pending[] = [];
  #scheduled = false;
  /** Flushes run one after another, so publishes follow commit order. */
  #flushing: Promise<void> = Promise.resolve();

  constructor(store: HostStore, hub: EventHub, options: CommitPublisherOptions = {}) {
    this.#store = store;
    this.#hub = hub;
    this.#group = options.groupCommit ?? true;
  }

  commit(unit: WriteUnit): Promise<CommitResult> {
    return this.commitAll([unit]).then((results) => results[0]!);
  }

  /**
   * Several units as ONE transaction: all are committed, then published in order, or none is (the
   * promise rejects and nothing of them is published). A group commit that fails is retried with these
   * still together, so they never commit in part.
   */
  commitAll(units: readonly WriteUnit[]): Promise<CommitResult[]> {
    if (units.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.#pending.push({ units, resolve, reject });
      if (!this.#group) {
        this.#schedule();
        return;
      }
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => {
          this.#scheduled = false;
          this.#schedule();
        });
      }
    });
  }

  /** Settles once everything asked for so far was committed (or refused) and published. */
  async drain(): Promise<void> {
    while (this.#pending.length > 0 || this.#scheduled) {
      this.#schedule();
      await this.#flushing;
      if (this.#scheduled) await new Promise((resolve) => setImmediate(resolve));
    }
    await this.#flushing;
  }

  #schedule(): void {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    this.#flushing = this.#flushing.then(() => this.#flush(batch));
  }

  async #flush(batch: readonly Pending[]): Promise<void> {
    if (batch.length > 1) {
      let results: CommitResult[] | undefined;
      try {
        results = await this.#store.commitMany(batch.flatMap((entry) => entry.units));
      } catch {
        // One entry may be at fault: commit them one by one so the others still go through, in order.
      }
      if (results !== undefined) {
        let next = 0;
        for (const entry of batch) {
          this.#publish(entry, results.slice(next, next + entry.units.length));
          next += entry.units.length;
        }
        return;
      }
    }
    for (const entry of batch) {
      let results: CommitResult[];
      try {
        results =
          entry.units.length === 1
            ? [await this.#store.commit(entry.units[0]!)]
            : await this.#store.commitMany(entry.units);
      } catch (error) {
        entry.reject(error);
        continue;
      }
      this.#publish(entry, results);
    }
  }

  #publish(entry: Pending, results: CommitResult[]): void {
    for (const result of results) this.#hub.publish(result);
    entry.resolve(results);
  }
}
