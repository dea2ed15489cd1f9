import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { MiddlewareHandler } from 'hono';

/**
 * The Content-Security-Policy of every response the host serves. Model output is rendered in the page, so a
 * prompt-injected reply must not be able to make the browser fetch or post anywhere but this host: images only
 * from the host itself (or `data:`/`blob:` URLs the page makes), requests only to the host, no inline or foreign
 * script, no framing. Inline style is allowed: the syntax highlighter colours tokens with style attributes, the
 * page shown before the UI is built has a `<style>` element, and a style cannot send data out when every fetch
 * it could trigger (`url(…)`) is held by `img-src`/`font-src`.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The headers every response carries, whichever way it is written: through Hono (`securityHeaders` below), by the guards
 * themselves (`security.ts`), or straight to the node response (the SSE streams of `sseResponse.ts`).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** Sets `SECURITY_HEADERS` on every response Hono sends, the errors of the guards and handlers included. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  // An SSE stream was written to the node response itself (with its own headers); the marker is shared.
  if (c.res !== RESPONSE_ALREADY_SENT) {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  }
};
