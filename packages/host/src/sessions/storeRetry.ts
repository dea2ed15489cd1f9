import { StoreError } from '../store/storeError.ts';

/** A write the store refused is tried again after this, doubling up to the maximum. */
const FIRST_DELAY_MS = 50;
const MAX_DELAY_MS = 1_000;

export interface StoreRetryOptions {
  /** True once the host is shutting down: the refusal is then thrown, not waited out. */
  readonly stopped: () => boolean;
  /** Told once, at the first refusal (for the log). */
  readonly onFirstRefusal: (error: StoreError) => void;
}

/**
 * Runs `write` until the store takes it: a `StoreError` is tried again with backoff, any other error is thrown
 * at once. What waits on it (the session's later events) waits in order, so nothing is dropped or reordered.
 */
export async function untilTheStoreTakes<T>(write: () => Promise<T>, options: StoreRetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof StoreError) || options.stopped()) throw error;
      if (attempt === 0) options.onFirstRefusal(error);
      await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt)));
    }
  }
}
