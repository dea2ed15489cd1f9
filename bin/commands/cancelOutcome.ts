import type { CancelResult, DispatchPhase } from '@outrigger/protocol';

/**
 * What Claude Code was doing when the cancel reached it, as the end of "The turn was canceled …".
 * Every phase the sidecar can report has an entry, so a new phase is a type error here, not a raw word
 * on the user's screen.
 */
const WHILE_PHASE: Record<DispatchPhase, string> = {
  queued: 'before Claude Code received it',
  dispatched: 'as it reached Claude Code',
  provider_observed: 'as Claude Code was starting on it',
  resolving_identity: 'as Claude Code was starting on it',
  identity_resolved: 'as Claude Code was starting on it',
  streaming: 'while Claude Code was answering',
  waiting_approval: 'while Claude Code was waiting for your approval',
  waiting_input: 'while Claude Code was waiting for your answer',
  running_tool: 'while Claude Code was running a tool',
  // A settled turn's background work, run on as a continuation turn (docs/protocol.md, cancel ownership).
  terminal: 'after its answer, with the background work it had left running',
  pending_goal: 'before it started',
  unknown: '',
};

/** What the chat itself was asking the user when Ctrl-C was pressed, if anything. */
export type OpenDialog = 'approval' | 'answer';

/**
 * The sidecar's answer to a Ctrl-C cancel in words, one line: whether the turn was stopped, and at what
 * point, or why nothing was (docs/protocol.md, the cancel result; the decision table in the v10
 * reference §3.4). When the chat was asking the user, that is what Claude Code waited for: the sidecar's
 * phase may already say `streaming` again, as Claude Code's own output about the same tool call can
 * arrive after its permission request.
 */
export function cancelOutcomeText(
  result: Pick<CancelResult, 'canceled' | 'disposition' | 'dispatchPhase'>,
  asking?: OpenDialog,
): string {
  const { canceled, disposition } = result;
  const dispatchPhase =
    asking && canceled && disposition === 'provider_active'
      ? asking === 'approval'
        ? 'waiting_approval'
        : 'waiting_input'
      : result.dispatchPhase;
  if (canceled) {
    if (dispatchPhase === 'queued') return 'Stopped. Your message was withdrawn before Claude Code received it.';
    if (dispatchPhase === 'pending_goal') return 'Stopped. The goal command was withdrawn before it started.';
    if (disposition === 'pre_accept') return 'Stopped. The turn was canceled before Claude Code began answering.';
    const when = WHILE_PHASE[dispatchPhase];
    return when === '' ? 'Stopped. The turn was canceled.' : `Stopped. The turn was canceled ${when}.`;
  }
  switch (disposition) {
    case 'absent':
      return 'Nothing to stop: the turn had already ended.';
    case 'provider_state_lost':
      return 'Not stopped: Claude Code had taken the turn, but the sidecar has lost its hold on it (its Claude Code query is gone), so it could not be interrupted.';
    case 'mismatch':
      return 'Not stopped: a different turn is running in this session.';
    default:
      return 'Not stopped: the sidecar did not cancel the turn.';
  }
}
