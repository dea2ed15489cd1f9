import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/*
 * Where the host that serves a data directory listens, starting one when none does. The host announces
 * itself in its lock file (`DATA/host.json`, `@outrigger/host`'s `hostLock.ts`), which also makes sure two
 * never serve one data directory: two editors that start at once both start a host, one wins the lock, the
 * other exits, and both editors connect to the winner. A host started here outlives the editor.
 */

export interface HostEndpoint {
  readonly baseUrl: string;
  /** Every request reads the token through this, so a rotated token is picked up (`outrigger token rotate`). */
  readonly fetch: typeof fetch;
}

/** A host process this editor started, until it announced itself. */
export interface StartedHost {
  /** Settles when the process exits, with the end of what it wrote to stderr. */
  readonly exited: Promise<{ code: number | null; stderr: string }>;
  /** Stops watching it: it runs on its own from here. */
  detach(): void;
}

export interface FindHostOptions {
  readonly dataDir: string;
  /** The host's announcement, or undefined when no live host holds the data directory. */
  readonly readLock: (dataDir: string) => Promise<{ readonly baseUrl: string | null } | undefined>;
  readonly startHost: () => StartedHost;
  readonly timeoutMs?: number;
  readonly pollMs?: number;
  readonly log: (line: string) => void;
}

export async function findOrStartHost(options: FindHostOptions): Promise<HostEndpoint> {
  const { dataDir, readLock, timeoutMs = 60_000, pollMs = 100 } = options;
  const tokenFetch = tokenFetchOf(join(dataDir, 'token'));
  const answering = async (): Promise<HostEndpoint | undefined> => {
    const lock = await readLock(dataDir);
    if (lock?.baseUrl == null) return undefined;
    const endpoint = { baseUrl: lock.baseUrl, fetch: tokenFetch };
    return (await isAnswering(endpoint)) ? endpoint : undefined;
  };
  const running = await answering();
  if (running !== undefined) return running;
  // A host that holds the lock but has not announced its address yet is starting: wait for it.
  let started: StartedHost | undefined;
  let exited: { code: number | null; stderr: string } | undefined;
  if ((await readLock(dataDir)) === undefined) {
    options.log(`no host serves ${dataDir}; starting one`);
    started = options.startHost();
    void started.exited.then((result) => {
      exited = result;
    });
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const endpoint = await answering();
    if (endpoint !== undefined) {
      started?.detach();
      return endpoint;
    }
    // Lost the race to another starter: its host holds the lock and is the one to wait for.
    if (exited !== undefined && (await readLock(dataDir)) === undefined) {
      throw new Error(`the host could not start (exit ${exited.code}): ${exited.stderr.trim() || 'no output'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  started?.detach();
  throw new Error(`no host answered for ${dataDir} within ${Math.round(timeoutMs / 1000)} s`);
}

async function isAnswering(endpoint: HostEndpoint): Promise<boolean> {
  try {
    const response = await endpoint.fetch(`${endpoint.baseUrl}/api/info`, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** A fetch that sends the data directory's token, read again after a 401 (the token was rotated). */
export function tokenFetchOf(tokenFile: string): typeof fetch {
  let token: string | undefined;
  const read = async () => {
    token = (await readFile(tokenFile, 'utf8')).trim();
    return token;
  };
  const send = (input: Parameters<typeof fetch>[0], init: RequestInit | undefined, bearer: string) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${bearer}`);
    return fetch(input, { ...init, headers });
  };
  return async (input, init) => {
    const response = await send(input, init, token ?? (await read()));
    if (response.status !== 401) return response;
    const previous = token;
    if ((await read()) === previous) return response;
    await response.body?.cancel();
    return send(input, init, token as string);
  };
}
