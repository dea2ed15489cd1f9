/**
 * Frees the Claude Code child (about 100 MB) of a Query nobody has used for a while. The session keeps
 * its live Query between turns, so a turn costs a prompt rather than a process start; once the session
 * has been idle for the whole TTL the owner retires the Query and the next turn resumes in a new one.
 * The timer never keeps the sidecar alive on its own.
 */
export class IdleQueryTimer {
  readonly #ttlMs: number;
  readonly #onExpired: () => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(ttlMs: number, onExpired: () => void) {
    this.#ttlMs = ttlMs;
    this.#onExpired = onExpired;
  }

  /** (Re)starts the full TTL. */
  arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#onExpired();
    }, this.#ttlMs);
    this.#timer.unref();
  }

  disarm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
