import { Worker } from 'node:worker_threads';
import { type ClaudeHistorySdk, claudeSessionSdk, type SessionSdk } from './sessionSdk.ts';
import type { SessionSdkCall, SessionSdkReply } from './sessionSdkWorker.ts';

/** A worker loads the whole SDK (~150 ms CPU), so it is kept for a while: the identity barrier retries. */
const IDLE_WORKER_LIFETIME_MS = 30_000;

/**
 * The worker's module: beside this one in the source tree, and beside the built entry in `dist/`, where the
 * build writes it as a file of its own (a worker cannot run a module that is bundled into another).
 */
const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './sessionSdkWorker.ts' : './sessionSdkWorker.js',
  import.meta.url,
);

type Method = SessionSdkCall['method'];

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

class ConfigDirWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  readonly #onRetire: () => void;
  #nextId = 0;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(claudeConfigDir: string, workerUrl: URL, onRetire: () => void) {
    this.#onRetire = onRetire;
    this.#worker = new Worker(workerUrl, {
      env: { ...process.env, CLAUDE_CONFIG_DIR: claudeConfigDir },
    });
    this.#worker.unref();
    this.#worker.on('message', (reply: SessionSdkReply) => this.#settle(reply));
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => this.#fail(new Error(`Claude session reader worker exited with code ${code}`)));
  }

  call(method: Method, args: unknown[]): Promise<unknown> {
    clearTimeout(this.#idleTimer);
    // Keep the process alive only while a caller waits for an answer.
    if (this.#pending.size === 0) this.#worker.ref();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, method, args } satisfies SessionSdkCall);
    });
  }

  #settle(reply: SessionSdkReply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
    if (this.#pending.size === 0) {
      this.#worker.unref();
      this.#idleTimer = setTimeout(() => this.#retire(), IDLE_WORKER_LIFETIME_MS).unref();
    }
  }

  #fail(error: Error): void {
    this.#onRetire();
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #retire(): void {
    this.#onRetire();
    void this.#worker.terminate();
  }
}

const workers = new Map<string, ConfigDirWorker>();

function workerFor(claudeConfigDir: string, workerUrl = WORKER_URL): ConfigDirWorker {
  const key = `${workerUrl.href}\0${claudeConfigDir}`;
  let worker = workers.get(key);
  if (!worker) {
    const created = new ConfigDirWorker(claudeConfigDir, workerUrl, () => {
      if (workers.get(key) === created) workers.delete(key);
    });
    worker = created;
    workers.set(key, worker);
  }
  return worker;
}

/** The SDK session APIs evaluated with `CLAUDE_CONFIG_DIR` set to the given dir, in a worker thread. */
export function configDirSessionSdk(claudeConfigDir: string): SessionSdk {
  const call = (method: Method, args: unknown[]) => workerFor(claudeConfigDir).call(method, args);
  return {
    getSessionMessages: (...args) => call('getSessionMessages', args) as ReturnType<SessionSdk['getSessionMessages']>,
    getSessionInfo: (...args) => call('getSessionInfo', args) as ReturnType<SessionSdk['getSessionInfo']>,
    forkSession: (...args) => call('forkSession', args) as ReturnType<SessionSdk['forkSession']>,
  };
}

/**
 * The session APIs as seen from a given Claude config dir. The SDK takes that dir only from
 * `process.env.CLAUDE_CONFIG_DIR` and reads it again at several points inside each (async) call, so
 * swapping the variable around a call would leak it to concurrent calls and to Query envs built
 * meanwhile. A different dir is therefore served from a worker thread, whose `process.env` is its own.
 */
export function sessionSdkForConfigDir(claudeConfigDir: string | undefined): SessionSdk {
  const dir = claudeConfigDir?.trim();
  if (!dir || dir === process.env.CLAUDE_CONFIG_DIR?.trim()) return claudeSessionSdk;
  return configDirSessionSdk(dir);
}

/**
 * Every SDK session function a history browser needs, evaluated in a worker thread under `claudeConfigDir`: a
 * listing parses hundreds of transcripts, which must not stall the caller's event loop. `workerUrl` is for a
 * caller that bundles this module elsewhere: the worker file stays beside the sidecar's built entry
 * (`dist/sessionSdkWorker.js`).
 */
export function claudeHistorySdk(claudeConfigDir: string, workerUrl?: URL): ClaudeHistorySdk {
  const call = (method: Method, args: unknown[]) => workerFor(claudeConfigDir, workerUrl).call(method, args);
  type Sdk = ClaudeHistorySdk;
  return {
    getSessionMessages: (...args) => call('getSessionMessages', args) as ReturnType<Sdk['getSessionMessages']>,
    getSessionInfo: (...args) => call('getSessionInfo', args) as ReturnType<Sdk['getSessionInfo']>,
    forkSession: (...args) => call('forkSession', args) as ReturnType<Sdk['forkSession']>,
    listSessions: (...args) => call('listSessions', args) as ReturnType<Sdk['listSessions']>,
    getSubagentMessages: (...args) => call('getSubagentMessages', args) as ReturnType<Sdk['getSubagentMessages']>,
    listSubagents: (...args) => call('listSubagents', args) as ReturnType<Sdk['listSubagents']>,
  };
}
