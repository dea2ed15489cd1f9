/** The most recent `capacity` keys, oldest forgotten first: enough to recognise a replay without growing forever. */
export class RecentKeys {
  readonly #capacity: number;
  readonly #keys = new Set<string>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Remembers the key; false when it was already among the remembered ones. */
  add(key: string): boolean {
    if (this.#keys.has(key)) return false;
    this.#keys.add(key);
    if (this.#keys.size > this.#capacity) {
      const oldest = this.#keys.values().next().value;
      if (oldest !== undefined) this.#keys.delete(oldest);
    }
    return true;
  }
}
