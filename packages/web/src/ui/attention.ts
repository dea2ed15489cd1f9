import { useEffect, useRef } from 'react';
import { type HostViewState, inboxItems, sessionsNeedingYou } from '../data/hostState.ts';
import { toolLabel } from '../data/toolSummary.ts';

/**
 * Tells the person when an agent waits for them: `(N) Outrigger` in the tab title, and a browser
 * notification for each new request while the tab is hidden (where they allowed notifications).
 */
export function useAttention(view: HostViewState): void {
  const count = sessionsNeedingYou(view);
  useEffect(() => {
    document.title = count > 0 ? `(${count}) Outrigger` : 'Outrigger';
  }, [count]);

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
      if (document.visibilityState === 'visible' || typeof Notification === 'undefined') continue;
      if (Notification.permission !== 'granted') continue;
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
