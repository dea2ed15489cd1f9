/**
 * Typed lines on demand. Lines typed before anyone asks wait in order (piped input arrives all at
 * once), so the chat reads the next prompt only after the current turn has ended.
 */
export class LineReader {
  readonly #lines: string[] = [];
  #waiter: ((line: string | undefined) => void) | undefined;
  #ended = false;

  /** Feeds one line in. */
  push(line: string): void {
    if (this.#ended) return;
    if (this.#waiter) this.#take()(line);
    else this.#lines.push(line);
  }

  /** No more lines will come (EOF or quit); queued lines are dropped when `discard` is set. */
  end(options: { discard?: boolean } = {}): void {
    this.#ended = true;
    if (options.discard) this.#lines.length = 0;
    if (this.#waiter && this.#lines.length === 0) this.#take()(undefined);
  }

  get ended(): boolean {
    return this.#ended && this.#lines.length === 0;
  }

  /** The next line; undefined once input has ended, or when `signal` aborts the wait. */
  next(signal?: AbortSignal): Promise<string | undefined> {
    if (this.#waiter) throw new Error('a line is already awaited');
    const queued = this.#lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#ended || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        if (this.#waiter === settle) this.#take()(undefined);
      };
      const settle = (line: string | undefined) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      };
      this.#waiter = settle;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #take(): (line: string | undefined) => void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (!waiter) throw new Error('no line is awaited');
    return waiter;
  }
}
