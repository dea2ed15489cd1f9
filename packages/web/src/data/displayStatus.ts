import type { SessionStatus, SessionSummary } from '@outrigger/host-api';
import type { ConnectionState } from './streamConnection.ts';

/**
 * What every place that shows a session's state shows: the host's status, `closed`, `disconnected`, or
 * `paused` (nothing runs and the user's Stop paused queued prompts: they wait for Run now or Resume).
 */
export type DisplayStatus = SessionStatus | 'paused' | 'closed' | 'disconnected';

export const statusLabels: Readonly<Record<DisplayStatus, string>> = {
  idle: 'Idle',
  running: 'Running',
  needs_input: 'Needs you',
  failed: 'Failed',
  paused: 'Paused',
  closed: 'Closed',
  disconnected: 'Disconnected',
};

/**
 * Closed is final (a closed session never takes another turn), so it holds whatever the stream does.
 * Otherwise a dead stream wins: the last status it delivered may be stale, and the UI never shows a
 * state it cannot vouch for.
 */
export function displayStatus(
  session: Pick<SessionSummary, 'status' | 'closed'> & { readonly queuePaused?: boolean },
  connection: ConnectionState,
): DisplayStatus {
  if (session.closed) return 'closed';
  if (connection === 'disconnected' || connection === 'unauthorized') return 'disconnected';
  // Paused prompts are news only while nothing else is: a running turn, a question or a failure says more.
  return session.status === 'idle' && session.queuePaused === true ? 'paused' : session.status;
}
