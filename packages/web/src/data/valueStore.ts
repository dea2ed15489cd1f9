/**
 * The smallest observable value: what React's `useSyncExternalStore` needs (`get` + `subscribe`),
 * with nothing React-specific, so the data layer stays testable in Node.
 */
export class ValueStore<T> {
  #value: T;
  readonly #listeners = new Set<() => void>();

  constructor(initial: T) {
    this.#value = initial;
  }

  get = (): T => this.#value;

  set(value: T): void {
    if (Object.is(value, this.#value)) return;
    this.#value = value;
    for (const listener of [...this.#listeners]) listener();
  }

  update(change: (value: T) => T): void {
    this.set(change(this.#value));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
}
