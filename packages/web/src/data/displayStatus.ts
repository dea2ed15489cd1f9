import type { SessionStatus, SessionSummary } from '@outrigger/host-api';
import type { ConnectionState } from './streamConnection.ts';

/** What every place that shows a session's state shows: the host's status, `closed`, or `disconnected`. */
export type DisplayStatus = SessionStatus | 'closed' | 'disconnected';

export const statusLabels: Readonly<Record<DisplayStatus, string>> = {
  idle: 'Idle',
  running: 'Running',
  needs_input: 'Needs you',
  failed: 'Failed',
  closed: 'Closed',
  disconnected: 'Disconnected',
};

/**
 * Closed is final (a closed session never takes another turn), so it holds whatever the stream does.
 * Otherwise a dead stream wins: the last status it delivered may be stale, and the UI never shows a
 * state it cannot vouch for.
 */
export function displayStatus(
  session: Pick<SessionSummary, 'status' | 'closed'>,
  connection: ConnectionState,
): DisplayStatus {
  if (session.closed) return 'closed';
  return connection === 'disconnected' || connection === 'unauthorized' ? 'disconnected' : session.status;
}
