import { useEffect, useState } from 'react';

/** Where the person is: a session, the needs-you inbox, or nothing chosen yet. */
export type Route = { page: 'session'; sessionId: string } | { page: 'inbox' } | { page: 'home' };

export function parseRoute(hash: string): Route {
  const session = /^#\/s\/([^/?#]+)/.exec(hash);
  if (session?.[1] !== undefined) return { page: 'session', sessionId: decodeURIComponent(session[1]) };
  if (hash.startsWith('#/inbox')) return { page: 'inbox' };
  return { page: 'home' };
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
