import { createHash, timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type { MiddlewareHandler } from 'hono';
import { SECURITY_HEADERS } from './contentSecurityPolicy.ts';
import { errorResponse } from './errorResponse.ts';
import { isPublicUiRequest, isUiPagePath } from './uiPaths.ts';

export interface SecurityOptions {
  /**
   * The bearer token (also the cookie's value), asked for on every request: when the host rotates its token,
   * bearers and cookies of the old one are refused from the next request on.
   */
  token: () => string;
  /** The port the host listens on. */
  port: number;
  /** The address it is bound to (`127.0.0.1` by default). */
  boundHost: string;
  /**
   * Served over HTTPS: the cookie gets `Secure`, so a browser never sends it over plain HTTP, and the host's own
   * origins are `https://` ones (a page loaded over TLS sends `Origin: https://…`).
   */
  secureCookie?: boolean;
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
 * 3. The page load `GET /?token=…` (or `/index.html?token=…`) trades a right token for an HttpOnly
 *    SameSite=Strict cookie and redirects to the same page without the token, so it leaves the address bar
 *    and the history.
 * 4. Reading the UI's files (`uiPaths.ts`) needs no token: they hold nothing secret, and the page must load to
 *    use the cookie.
 * 5. Everything else needs `Authorization: Bearer <token>` or the cookie, and a token in its query string is
 *    refused (it would end up in logs and histories): 401. Deny is the default, so a route added later, or a
 *    spelling of a path nobody thought of, is guarded without anyone listing it.
 * Steps 3 and 4 are decided on `c.req.path`, the decoded path the router matches.
 */
export function securityMiddleware(options: SecurityOptions): MiddlewareHandler {
  const ownHosts = ownHostHeaders(options);
  const scheme = options.secureCookie === true ? 'https' : 'http';
  const ownOrigins = new Set([...ownHosts].map((host) => `${scheme}://${host}`));
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
    const path = c.req.path;
    const url = new URL(c.req.url);
    const token = options.token();
    if (c.req.method === 'GET' && isUiPagePath(path) && url.searchParams.has('token')) {
      if (!tokenMatches(url.searchParams.get('token') ?? '', token)) {
        return c.html(
          '<!doctype html><title>Outrigger</title><p>This link has a wrong token. Open the URL that <code>outrigger serve</code> printed.</p>',
          401,
          SECURITY_HEADERS,
        );
      }
      url.searchParams.delete('token');
      const secure = options.secureCookie === true ? '; Secure' : '';
      return new Response(null, {
        status: 303,
        headers: {
          ...SECURITY_HEADERS,
          // The decoded path is one of the page paths, so the redirect can only lead to this host's page.
          location: `${path}${url.search}`,
          'set-cookie': `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000${secure}`,
          'cache-control': 'no-store',
        },
      });
    }
    if (isPublicUiRequest(c.req.method, path)) return next();
    if (url.searchParams.has('token')) {
      return errorResponse(
        'unauthorized',
        'the token is accepted only in the Authorization header (or the cookie the page sets), never in a URL but the page link',
      );
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim();
    const cookies = readCookies(c.req.header('cookie'), cookieName);
    if (!tokenMatches(bearer, token) && !cookies.some((cookie) => tokenMatches(cookie, token))) {
      return errorResponse(
        'unauthorized',
        'a valid token is needed: open the URL that outrigger serve printed when it started',
        {
          headers: { 'www-authenticate': 'Bearer realm="outrigger"' },
        },
      );
    }
    return next();
  };
}

/**
 * Every value of the cookie `name`, in the order sent. A browser sends all cookies of a name whose path and
 * domain match, the most specific path first, and cookies ignore ports: a page on another port of 127.0.0.1
 * can set `outrigger_token_<port>=junk; Path=/api`, which then comes before ours. Reading only the first
 * would lock the owner out.
 */
function readCookies(header: string | undefined, name: string): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) values.push(part.slice(index + 1).trim());
  }
  return values;
}
