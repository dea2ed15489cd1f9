import type { SessionViewState } from './sessionState.ts';

/**
 * Why the files cannot be rewound or reverted (or the worktree merged or removed) now; null when they can.
 * The host refuses while a turn runs (its agent is writing them), and a queued prompt would start on files
 * the person is taking back; paused prompts wait for the person, so they do not block it.
 */
export function rewindBlockedReason(view: Pick<SessionViewState, 'session' | 'queuedPrompts'>): string | null {
  if (view.session?.runningTurnId != null) return 'A turn is running: wait for it to end.';
  if (view.queuedPrompts.some((prompt) => !prompt.paused))
    return 'Prompts are queued: wait for them to run, or remove them.';
  return null;
}

/** Where "Conversation" goes back to: a fork at the user turn before this one, or a new session at the first. */
export type ConversationStart = { kind: 'fork'; turnId: string } | { kind: 'new' };

/**
 * The conversation from just before `turnId`: a fork keeps the turns up to and including the one it forks
 * at, so it forks at the previous user turn; before the first there is none, so a new session starts.
 * Null when that cannot be known here (the turn before is in rows not loaded yet).
 */
export function conversationBefore(view: SessionViewState, turnId: string): ConversationStart | null {
  const order = userTurnsInOrder(view);
  const index = order.indexOf(turnId);
  if (index === -1) return null;
  if (index > 0) return { kind: 'fork', turnId: order[index - 1]! };
  return view.hasOlder ? null : { kind: 'new' };
}

/** The user turns that ran, oldest first (queued ones have not). */
export function userTurnsInOrder(view: SessionViewState): string[] {
  return Object.values(view.turns)
    .filter((turn) => turn.kind === 'user' && turn.status !== 'queued')
    .sort((a, b) => (a.startedAt ?? a.createdAt) - (b.startedAt ?? b.createdAt) || a.createdAt - b.createdAt)
    .map((turn) => turn.id);
}
