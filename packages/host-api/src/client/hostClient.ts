import type { HostErrorCode, HostErrorDetail } from '../errors.ts';
import { hostErrorBodySchema } from '../errors.ts';
import { type HostRouteName, hostRoutes, type RouteBody, type RouteResponse } from '../routes.ts';
import { readSseFrames, type SseFrame } from './sseFrames.ts';

/** A non-2xx answer of the host, with its stable code. */
export class HostApiError extends Error {
  readonly status: number;
  readonly code: HostErrorCode | 'unexpected_response';
  readonly details: readonly HostErrorDetail[];
  /** `already_continued`: the Outrigger session that already continues it. */
  readonly sessionId: string | undefined;

  constructor(
    status: number,
    code: HostErrorCode | 'unexpected_response',
    message: string,
    details: readonly HostErrorDetail[] = [],
    sessionId?: string,
  ) {
    super(message);
    this.name = 'HostApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.sessionId = sessionId;
  }
}

export interface HostClientOptions {
  /** `http://127.0.0.1:PORT`; empty in a browser page served by the host (same origin). */
  baseUrl?: string;
  /** Bearer token; omit in the browser, where the HttpOnly cookie authenticates. */
  token?: string;
  fetch?: typeof fetch;
}

export interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * A typed client of the host API, usable in the browser and in Node. Each method is one route of
 * `hostRoutes`; responses are returned as the host sent them (the host validated them already).
 */
export class HostClient {
  readonly #baseUrl: string;
  readonly #token: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: HostClientOptions = {}) {
    this.#baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
    this.#token = options.token;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The URL of a route with its parameters and query filled in. */
  url(name: HostRouteName, params: Record<string, string> = {}, query: CallOptions['query'] = {}): string {
    const path = hostRoutes[name].path.replace(/:([A-Za-z]+)/g, (_, key: string) => {
      const value = params[key];
      if (value === undefined) throw new Error(`${name} needs the path parameter ${key}`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
    const qs = search.toString();
    return `${this.#baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  /** Calls a route and returns its parsed JSON (undefined for 204). Throws `HostApiError` otherwise. */
  async call<N extends HostRouteName>(
    name: N,
    options: Omit<CallOptions, 'body'> & { body?: RouteBody<N> } = {},
  ): Promise<RouteResponse<N>> {
    const route = hostRoutes[name];
    const response = await this.raw(name, options);
    if (route.status === 204 || response.status === 204) return undefined as RouteResponse<N>;
    return (await response.json()) as RouteResponse<N>;
  }

  /** The raw response of a route (checked for a 2xx status), for SSE and binary routes. */
  async raw(name: HostRouteName, options: CallOptions = {}): Promise<Response> {
    const route = hostRoutes[name];
    const headers: Record<string, string> = { ...options.headers };
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await this.#fetch(this.url(name, options.params, options.query), {
      method: route.method,
      headers,
      body,
      signal: options.signal,
      credentials: 'same-origin',
    });
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  /**
   * Opens an SSE stream (`sessionEvents` or `hostEvents`) after `lastEventId` and yields its frames,
   * heartbeats included, until the stream ends or `signal` aborts.
   */
  async *stream(
    name: 'sessionEvents' | 'hostEvents',
    options: { params?: Record<string, string>; lastEventId?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<SseFrame, void, undefined> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
    const response = await this.raw(name, { params: options.params, headers, signal: options.signal });
    if (response.body === null)
      throw new HostApiError(response.status, 'unexpected_response', 'the stream has no body');
    yield* readSseFrames(response.body, options.signal);
  }
}

async function errorOf(response: Response): Promise<HostApiError> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = hostErrorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const { code, message, details, sessionId } = parsed.data.error;
      return new HostApiError(response.status, code, message, details, sessionId);
    }
  } catch {
    // not JSON: reported below
  }
  return new HostApiError(response.status, 'unexpected_response', `HTTP ${response.status} without an error body`);
}
