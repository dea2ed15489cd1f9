import { useEffect, useState } from 'react';

/** Where the person is: a session, the needs-you inbox, Claude Code's history or one of its sessions, or nothing chosen yet. */
export type Route =
  | { page: 'session'; sessionId: string }
  | { page: 'inbox' }
  | { page: 'history' }
  | { page: 'historySession'; claudeSessionId: string }
  | { page: 'home' };

export function parseRoute(hash: string): Route {
  const session = /^#\/s\/([^/?#]+)/.exec(hash);
  if (session?.[1] !== undefined) return { page: 'session', sessionId: decodeURIComponent(session[1]) };
  if (hash.startsWith('#/inbox')) return { page: 'inbox' };
  const history = /^#\/history(?:\/([^/?#]+))?/.exec(hash);
  if (history !== null)
    return history[1] === undefined
      ? { page: 'history' }
      : { page: 'historySession', claudeSessionId: decodeURIComponent(history[1]) };
  return { page: 'home' };
}

export const historyHref = '#/history';

export function historySessionHref(claudeSessionId: string): string {
  return `#/history/${encodeURIComponent(claudeSessionId)}`;
}

export function sessionHref(sessionId: string): string {
  return `#/s/${encodeURIComponent(sessionId)}`;
}

export function navigate(href: string): void {
  if (window.location.hash !== href) window.location.hash = href;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
