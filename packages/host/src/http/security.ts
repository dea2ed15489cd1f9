import { createHash, timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type { MiddlewareHandler } from 'hono';
import { errorResponse } from './errorResponse.ts';

export interface SecurityOptions {
  /** The bearer token (also the cookie's value). */
  token: string;
  /** The port the host listens on. */
  port: number;
  /** The address it is bound to (`127.0.0.1` by default). */
  boundHost: string;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Every `Host` header value the host answers to: the loopback names and the bound address, with the port
 * (and without it on port 80, as browsers send it). Bound to a wildcard address, every address of this
 * machine counts as its own.
 */
export function ownHostHeaders(options: Pick<SecurityOptions, 'port' | 'boundHost'>): ReadonlySet<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bound = options.boundHost;
  if (bound === '0.0.0.0' || bound === '::') {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(hostName(address.address));
    }
  } else {
    names.add(hostName(bound));
  }
  const out = new Set<string>();
  for (const name of names) {
    out.add(`${name}:${options.port}`);
    if (options.port === 80) out.add(name);
  }
  return out;
}

function hostName(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address.toLowerCase()}]` : address.toLowerCase();
}

/** The cookie carries the port in its name: cookies ignore ports, and two hosts on one machine must not clash. */
export function tokenCookieName(port: number): string {
  return `outrigger_token_${port}`;
}

/** Equal-length digests, so the comparison takes the same time whatever the candidate's length or content. */
export function tokenMatches(candidate: string | undefined, token: string): boolean {
  if (candidate === undefined || candidate === '') return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(candidate), digest(token));
}

/**
 * The guards every request passes, in this order:
 * 1. `Host` must be one of the host's own (DNS rebinding): else 421.
 * 2. `Origin`, when present, must be the host's own origin: else 403 (cross-site requests, CSRF).
 * 3. The page load `GET /?token=…` trades a right token for an HttpOnly SameSite=Strict cookie and
 *    redirects to the same URL without the token, so it leaves the address bar and the history.
 * 4. `/api/*` needs `Authorization: Bearer <token>` or the cookie; a token in an API query string is refused
 *    (it would end up in logs and histories): 401.
 * The UI's static files need no token: they hold nothing secret, and the page must load to use the cookie.
 */
export function securityMiddleware(options: SecurityOptions): MiddlewareHandler {
  const ownHosts = ownHostHeaders(options);
  const ownOrigins = new Set([...ownHosts].map((host) => `http://${host}`));
  const cookieName = tokenCookieName(options.port);
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase();
    if (host === undefined || !ownHosts.has(host)) {
      return errorResponse('misdirected_request', 'this host answers only to its own address');
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !ownOrigins.has(origin.toLowerCase())) {
      return errorResponse('forbidden', 'requests from another origin are refused');
    }
    const url = new URL(c.req.url);
    if (url.pathname.startsWith('/api/') || url.pathname === '/api') {
      if (url.searchParams.has('token')) {
        return errorResponse(
          'unauthorized',
          'the token is accepted only in the Authorization header (or the cookie the page sets), never in an API URL',
        );
      }
      const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim();
      const cookie = readCookie(c.req.header('cookie'), cookieName);
      if (!tokenMatches(bearer, options.token) && !tokenMatches(cookie, options.token)) {
        return errorResponse(
          'unauthorized',
          'a valid token is needed: open the URL that outrigger serve printed when it started',
          {
            headers: { 'www-authenticate': 'Bearer realm="outrigger"' },
          },
        );
      }
      return next();
    }
    if (url.pathname === '/' && url.searchParams.has('token') && c.req.method === 'GET') {
      if (!tokenMatches(url.searchParams.get('token') ?? '', options.token)) {
        return c.html(
          '<!doctype html><title>Outrigger</title><p>This link has a wrong token. Open the URL that <code>outrigger serve</code> printed.</p>',
          401,
        );
      }
      url.searchParams.delete('token');
      const location = `/${url.search}`;
      return new Response(null, {
        status: 303,
        headers: {
          location,
          'set-cookie': `${cookieName}=${options.token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000`,
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        },
      });
    }
    return next();
  };
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
