import type { IncomingHttpHeaders } from 'node:http';

/** One HTTP request the mock received, any method or path. */
export interface RecordedRequest {
  /** 0-based position among all requests this server received. */
  index: number;
  method: string;
  /** The path without the query string, e.g. `/v1/messages`. */
  path: string;
  /** The path with its query string, e.g. `/v1/messages?beta=true`. */
  url: string;
  /** Lower-case header names; credentials replaced by `[redacted]`. */
  headers: Record<string, string>;
  /** Parsed JSON; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  /** For POST /v1/messages: the rule that answered (its name, or `rules[N]`), or `placeholder` in non-strict mode. */
  answeredBy?: string;
}

const credentialHeaders = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie']);

export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = credentialHeaders.has(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function parseRequestBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
