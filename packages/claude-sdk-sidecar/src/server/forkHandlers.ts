import { forkSession } from '../fork/forkSession.ts';
import { inspectForkCheckpoints } from '../fork/inspectForkCheckpoints.ts';
import { recoverTurnBinding } from '../fork/recoverTurnBinding.ts';
import type { StatelessHandlers } from './sidecarServer.ts';

/** The stateless requests on the official SDK session APIs. */
export const forkHandlers: StatelessHandlers = {
  inspectForkCheckpoints: (payload) => inspectForkCheckpoints(payload),
  recoverTurnBinding: (payload) => recoverTurnBinding(payload),
  forkSession: (payload) => forkSession(payload),
};
