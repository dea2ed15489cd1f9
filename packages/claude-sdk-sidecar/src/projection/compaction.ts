import type { EmitEvent } from '@outrigger/protocol';

/**
 * `compact_started` / `compact_completed` / `compact_failed`, at most once each per turn, from
 * `system/status` (`compacting`, then `compact_result`) and `system/compact_boundary`.
 */
export class Compaction {
  readonly #emit: EmitEvent;
  #turnId: string | undefined;
  #started = false;
  #finished = false;

  constructor(emit: EmitEvent) {
    this.#emit = emit;
  }

  status(status: unknown, result: unknown, error: unknown, turnId: string | undefined): void {
    if (status === 'compacting') this.#start(turnId);
    if (result === 'success') this.#complete(turnId);
    if (result === 'failed') this.#fail(typeof error === 'string' ? error.trim() : '', turnId);
  }

  /** A boundary is written once the summary replaced the history: compaction succeeded. */
  boundary(turnId: string | undefined): void {
    this.#complete(turnId);
  }

  reset(): void {
    this.#turnId = undefined;
    this.#started = false;
    this.#finished = false;
  }

  #start(turnId: string | undefined): boolean {
    if (turnId === undefined) return false;
    if (turnId !== this.#turnId) {
      this.#turnId = turnId;
      this.#started = false;
      this.#finished = false;
    }
    if (!this.#started) {
      this.#started = true;
      this.#emit('compact_started', { turnId, content: 'Compacting...' });
    }
    return true;
  }

  #complete(turnId: string | undefined): void {
    if (!this.#start(turnId) || turnId === undefined || this.#finished) return;
    this.#finished = true;
    this.#emit('compact_completed', { turnId, content: 'Compacting completed.' });
  }

  #fail(reason: string, turnId: string | undefined): void {
    if (!this.#start(turnId) || turnId === undefined || this.#finished) return;
    this.#finished = true;
    this.#emit(
      'compact_failed',
      reason === ''
        ? { turnId, content: 'Compacting failed.' }
        : { turnId, reason, content: `Compacting failed: ${reason}` },
    );
  }
}
