import { HostError } from '../hostError.ts';

/**
 * A write the store refused, or a read it could not serve (closed, disk, constraint). Nothing of the
 * failed write was kept. The HTTP layer answers it as `503 store_unavailable`; the message names the
 * operation and SQLite's reason, never row contents.
 */
export class StoreError extends HostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('store_unavailable', message);
    this.name = 'StoreError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
