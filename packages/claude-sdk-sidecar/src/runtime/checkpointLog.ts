/** Remembers the most recent checkpoint keys so a replayed message never publishes the same checkpoint twice. */
export class CheckpointLog {
  readonly #capacity: number;
  readonly #seen = new Set<string>();

  constructor(capacity = 128) {
    this.#capacity = capacity;
  }

  /** Records the checkpoint; false when it was already among the remembered ones. */
  record(turnId: string, providerTurnId: string, checkpointId: string): boolean {
    const key = `${turnId}\u0000${providerTurnId}\u0000${checkpointId}`;
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    if (this.#seen.size > this.#capacity) {
      const oldest = this.#seen.values().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
    return true;
  }
}
