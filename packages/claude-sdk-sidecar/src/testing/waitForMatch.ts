export interface WaitOptions {
  timeoutMs?: number;
  /** Names what was awaited in the timeout failure. */
  description?: string;
  /** Only items at or after this index count. */
  fromIndex?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The first item of a growing list that matches `predicate`, already there or yet to come; `subscribe`
 * registers a wake-up for each new item. Fails after the timeout, naming what it waited for and the
 * types it saw instead.
 */
export function waitForMatch<T extends { readonly type: string }>(
  items: readonly T[],
  subscribe: (wake: () => void) => () => void,
  predicate: (item: T) => boolean,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const from = options.fromIndex ?? 0;
  const find = (): T | undefined => items.slice(from).find(predicate);
  const found = find();
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const unsubscribe = subscribe(() => {
      const match = find();
      if (!match) return;
      finish();
      resolve(match);
    });
    const timer = setTimeout(() => {
      finish();
      const seen = items.slice(from).map((item) => item.type);
      reject(
        new Error(
          `timed out after ${timeoutMs}ms waiting for ${options.description ?? 'a match'}; saw: ${seen.join(', ')}`,
        ),
      );
    }, timeoutMs);
    const finish = (): void => {
      clearTimeout(timer);
      unsubscribe();
    };
  });
}
