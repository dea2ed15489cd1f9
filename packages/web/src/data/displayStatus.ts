import type { SessionStatus } from '@outrigger/host-api';
import type { ConnectionState } from './streamConnection.ts';

/** What every place that shows a session's state shows: the host's status, or `disconnected`. */
export type DisplayStatus = SessionStatus | 'disconnected';

export const statusLabels: Readonly<Record<DisplayStatus, string>> = {
  idle: 'Idle',
  running: 'Running',
  needs_input: 'Needs you',
  failed: 'Failed',
  disconnected: 'Disconnected',
};

/**
 * A dead stream wins over everything: the last status it delivered may be stale, and the UI never
 * shows a state it cannot vouch for.
 */
export function displayStatus(status: SessionStatus, connection: ConnectionState): DisplayStatus {
  return connection === 'disconnected' || connection === 'unauthorized' ? 'disconnected' : status;
}
