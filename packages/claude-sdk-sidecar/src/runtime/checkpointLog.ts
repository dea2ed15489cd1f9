import { RecentKeys } from '../shared/recentKeys.ts';

/** Remembers the most recent checkpoint keys so a replayed message never publishes the same checkpoint twice. */
export class CheckpointLog {
  readonly #seen: RecentKeys;

  constructor(capacity = 128) {
    this.#seen = new RecentKeys(capacity);
  }

  /** Records the checkpoint; false when it was already among the remembered ones. */
  record(turnId: string, providerTurnId: string, checkpointId: string): boolean {
    return this.#seen.add(`${turnId}\u0000${providerTurnId}\u0000${checkpointId}`);
  }
}
