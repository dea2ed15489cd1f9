import { forkSession } from '../fork/forkSession.ts';
import { inspectForkCheckpoints } from '../fork/inspectForkCheckpoints.ts';
import { recoverTurnBinding } from '../fork/recoverTurnBinding.ts';
import type { StatelessHandlers } from './sidecarServer.ts';

/** The stateless requests on the official SDK session APIs. */
export const forkHandlers: StatelessHandlers = {
  inspect_fork_checkpoints: (payload) => inspectForkCheckpoints(payload),
  recover_turn_binding: (payload) => recoverTurnBinding(payload),
  fork_session: (payload) => forkSession(payload),
};
