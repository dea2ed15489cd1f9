import { HostError } from './hostError.ts';
import type { ServiceFactory } from './serve.ts';

/**
 * The real core behind the HTTP layer: the SQLite store, the event hub, the projection's ledgers, the
 * sidecar supervisor and the session manager, built from the serve context.
 */
export const createHostService: ServiceFactory = async () => {
  throw new HostError('internal', 'the session core is not wired into `outrigger serve` yet');
};
