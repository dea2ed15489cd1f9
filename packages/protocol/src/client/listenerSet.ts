/**
 * Host callbacks of one kind. Each is called on its own: one that throws is handed to `onError`, never
 * thrown into whatever delivered the value (a stream's data handler, where it would be an uncaught
 * exception), and the others are still called.
 */
export class ListenerSet<T> {
  readonly #listeners = new Set<(value: T) => void>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Returns the unsubscribe function. */
  add(listener: (value: T) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** How many listeners there are: an owner may skip making a value nobody takes. */
  get size(): number {
    return this.#listeners.size;
  }

  emit(value: T): void {
    for (const listener of this.#listeners) {
      try {
        listener(value);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}

/** Where the failures of an owner's listeners go: its error hooks, or a process warning while it has none. */
export class ListenerErrorHooks<K extends string> {
  readonly #owner: string;
  readonly #hooks = new Set<(error: unknown, kind: K) => void>();

  constructor(owner: string) {
    this.#owner = owner;
  }

  add(hook: (error: unknown, kind: K) => void): () => void {
    this.#hooks.add(hook);
    return () => {
      this.#hooks.delete(hook);
    };
  }

  /** A `ListenerSet` whose throwing listeners are reported here as `kind`. */
  listeners<T>(kind: K): ListenerSet<T> {
    return new ListenerSet<T>((error) => this.report(error, kind));
  }

  report(error: unknown, kind: K): void {
    if (this.#hooks.size === 0) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      process.emitWarning(`a ${this.#owner} ${kind} listener threw: ${detail}`, 'SidecarListenerError');
      return;
    }
    for (const hook of this.#hooks) {
      try {
        hook(error, kind);
      } catch {
        // A hook that throws has nowhere further to report to, and the stream must not see it either.
      }
    }
  }
}
