import type { SessionSummary } from '@outrigger/host-api';
import { useEffect, useRef } from 'react';
import { finishedTurns } from '../data/attentionEvents.ts';
import { type HostViewState, inboxItems, sessionsNeedingYou } from '../data/hostState.ts';
import { toolLabel } from '../data/toolSummary.ts';

/**
 * Tells the person when an agent waits for them: `(N) Outrigger` in the tab title, and a browser
 * notification for each new request, and for each turn that ends, while the tab is hidden (where they allowed
 * notifications).
 */
export function useAttention(view: HostViewState): void {
  const count = sessionsNeedingYou(view);
  useEffect(() => {
    document.title = count > 0 ? `(${count}) Outrigger` : 'Outrigger';
  }, [count]);

  const sessionsBefore = useRef<Readonly<Record<string, SessionSummary>> | null>(null);
  useEffect(() => {
    if (!view.loaded) return;
    const before = sessionsBefore.current;
    sessionsBefore.current = view.sessions;
    if (before === null || !canNotify()) return;
    for (const turn of finishedTurns(before, view.sessions)) {
      const notification = new Notification(turn.failed ? `${turn.title}: the turn failed` : `${turn.title} is done`, {
        body: turn.failed ? 'Claude stopped with an error.' : 'Claude finished the turn.',
        tag: `turn-${turn.sessionId}`,
      });
      notification.onclick = () => {
        window.focus();
        window.location.hash = `#/s/${encodeURIComponent(turn.sessionId)}`;
      };
    }
  }, [view]);

  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    const items = inboxItems(view);
    if (!view.loaded) return;
    if (seen.current === null) {
      seen.current = new Set(items.map((item) => item.requestId));
      return;
    }
    for (const item of items) {
      if (seen.current.has(item.requestId)) continue;
      seen.current.add(item.requestId);
      if (!canNotify()) continue;
      const session = view.sessions[item.session_id];
      const what =
        item.kind === 'question'
          ? 'has a question'
          : item.kind === 'plan'
            ? 'has a plan'
            : `wants to use ${toolLabel(item.toolName)}`;
      const notification = new Notification(`${session?.title ?? 'A session'} needs you`, {
        body: `Claude ${what}.`,
        tag: item.requestId,
      });
      notification.onclick = () => {
        window.focus();
        window.location.hash = `#/s/${encodeURIComponent(item.session_id)}`;
      };
    }
  }, [view]);
}

/** Only while the tab is hidden, and only where the person allowed notifications. */
function canNotify(): boolean {
  return (
    document.visibilityState !== 'visible' &&
    typeof Notification !== 'undefined' &&
    Notification.permission === 'granted'
  );
}
