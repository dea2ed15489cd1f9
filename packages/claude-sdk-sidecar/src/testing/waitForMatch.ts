export interface WaitOptions {
  timeoutMs?: number;
  /** Names what was awaited in the timeout failure. */
  description?: string;
  /** Only items at or after this index count. */
  fromIndex?: number;
}

export interface WaitForMatchOptions<T> extends WaitOptions {
  /** How an item is named in the timeout failure; default its `type`. */
  label?: (item: T) => string;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The first item of a growing list that matches `predicate`, already there or yet to come; `subscribe`
 * registers a wake-up for each new item. Each item is tested once (a long list is not scanned again on every
 * wake-up). Fails after the timeout, naming what it waited for and the types it saw instead.
 */
export function waitForMatch<T>(
  items: readonly T[],
  subscribe: (wake: () => void) => () => void,
  predicate: (item: T) => boolean,
  options: WaitForMatchOptions<T> = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const from = options.fromIndex ?? 0;
  const label = options.label ?? ((item: T) => String((item as { type?: unknown }).type));
  let next = from;
  const find = (): T | undefined => {
    for (; next < items.length; next += 1) {
      const item = items[next] as T;
      if (predicate(item)) return item;
    }
    return undefined;
  };
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
      const seen = items.slice(from).map(label);
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
