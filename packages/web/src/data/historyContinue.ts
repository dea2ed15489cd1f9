import { type HistorySession, HostApiError } from '@outrigger/host-api';

/**
 * What "Continue in Outrigger" can offer for a Claude Code session:
 * `ready`: resume it (the default) or fork it.
 * `in_use`: it changed in the last minutes and may be open in a terminal; resuming it here too would interleave
 * two writers in one transcript (Claude Code has no lock), so Fork is offered first and "Continue anyway" forces.
 * `continued`: an Outrigger session already resumes it; open that one instead.
 * `gone`: its directory no longer exists; it can be read, not continued.
 */
export type ContinueOffer =
  | { kind: 'ready' }
  | { kind: 'in_use' }
  | { kind: 'continued'; sessionId: string }
  | { kind: 'gone'; reason: string };

export function continueOffer(session: HistorySession): ContinueOffer {
  if (session.outriggerSessionId !== null) return { kind: 'continued', sessionId: session.outriggerSessionId };
  if (!session.cwdExists)
    return {
      kind: 'gone',
      reason: `${session.cwd} no longer exists, and Claude Code resumes a session only in its own directory. You can still read it here.`,
    };
  if (session.recentlyActive) return { kind: 'in_use' };
  return { kind: 'ready' };
}

/**
 * The offer a refused continue leads to: the host found the transcript in use (`history_in_use`) or already
 * continued (`already_continued`, its body naming the session); null for any other failure, shown as an error.
 */
export function offerAfterRefusal(error: unknown): ContinueOffer | null {
  if (!(error instanceof HostApiError)) return null;
  if (error.code === 'history_in_use') return { kind: 'in_use' };
  if (error.code === 'already_continued' && error.sessionId !== undefined) {
    return { kind: 'continued', sessionId: error.sessionId };
  }
  return null;
}
