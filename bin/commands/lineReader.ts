/**
 * Typed lines on demand. Lines typed before anyone asks wait in order (piped input arrives all at
 * once, and a person may type ahead while a turn runs), so the chat reads the next prompt only after
 * the current turn has ended.
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
    // A waiter exists only while nothing it could take is queued.
    if (this.#waiter) this.#take()(undefined);
  }

  get ended(): boolean {
    return this.#ended && this.#lines.length === 0;
  }

  /** How many typed lines wait to be read. */
  get queued(): number {
    return this.#lines.length;
  }

  /**
   * The next line; undefined once input has ended, or when `signal` aborts the wait. With `fresh`, only
   * a line pushed after this call counts: lines already queued stay queued for the next plain read (an
   * answer to a question must be typed after the question was shown, not before).
   */
  next(signal?: AbortSignal, options: { fresh?: boolean } = {}): Promise<string | undefined> {
    if (this.#waiter) throw new Error('a line is already awaited');
    if (!options.fresh) {
      const queued = this.#lines.shift();
      if (queued !== undefined) return Promise.resolve(queued);
    }
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
