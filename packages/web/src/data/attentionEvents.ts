import type { SessionSummary } from '@outrigger/host-api';

export interface FinishedTurn {
  readonly sessionId: string;
  readonly title: string;
  readonly failed: boolean;
}

/**
 * The sessions whose turn ended between two views of the sidebar: one that ran and now runs nothing. One that
 * now waits for the person is left out (its request has a notification of its own), and so is one that was
 * closed (the person did that).
 */
export function finishedTurns(
  before: Readonly<Record<string, SessionSummary>>,
  after: Readonly<Record<string, SessionSummary>>,
): FinishedTurn[] {
  const finished: FinishedTurn[] = [];
  for (const session of Object.values(after)) {
    const previous = before[session.id];
    if (previous === undefined || previous.runningTurnId === null || session.runningTurnId !== null) continue;
    if (session.status === 'needs_input' || session.closed) continue;
    finished.push({ sessionId: session.id, title: session.title, failed: session.status === 'failed' });
  }
  return finished;
}

export type NotificationState = 'unsupported' | 'insecure' | 'default' | 'denied' | 'granted';

/** What the browser allows, in one word. */
export function notificationState(): NotificationState {
  if (typeof window !== 'undefined' && window.isSecureContext === false) return 'insecure';
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.permission;
}

/**
 * What the person is told next to the notification button: why there will be none and how to allow them.
 * `asked`: they just answered the browser's prompt (a dismissed prompt leaves `default`).
 */
export function notificationAdvice(state: NotificationState, asked: boolean): string | null {
  switch (state) {
    case 'granted':
      return null;
    case 'denied':
      return 'This browser blocks notifications from this page. To allow them, open the site settings (the icon left of the address) and set Notifications to Allow, then reload.';
    case 'default':
      return asked
        ? 'The browser’s question was closed without allowing notifications; press Notify me again to answer it.'
        : null;
    case 'insecure':
      return 'Browsers send notifications only to pages on https or on localhost; open Outrigger at http://127.0.0.1 or http://localhost.';
    case 'unsupported':
      return 'This browser has no notifications; the tab title still counts the sessions that need you.';
  }
}
