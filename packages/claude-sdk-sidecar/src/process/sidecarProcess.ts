import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import {
  createStdioLineTransport,
  isPlainObject,
  type LineTransport,
  ListenerErrorHooks,
  parseSidecarLine,
  type RequestOptions,
  type RequestType,
  SidecarClient,
  type SidecarListenerKind,
} from '@outrigger/protocol';
import { captureLines } from './lineCapture.ts';
import { signalProcessGroup } from './processGroup.ts';
import { parseSidecarDiagnostic, type SidecarDiagnostic } from './sidecarDiagnostic.ts';
import { builtSidecarEntry } from './sidecarEntry.ts';

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_STDERR_LINES = 500;
const MAX_STDERR_LINE_LENGTH = 8_192;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;
/** How long a SIGTERMed sidecar gets to close its sessions before its whole group is killed. */
const TERMINATE_GRACE_MS = 2_000;
/** How long `exited` waits after the exit for stderr to deliver its last lines (a crash's stack trace). */
const STDERR_DRAIN_MS = 500;
/** Non-diagnostic stderr lines kept for `stderrTail()`. */
const TAIL_LINES_KEPT = 50;
const DEFAULT_TAIL_LINES = 20;
const DEFAULT_TAIL_CHARS = 2_000;

export interface SidecarProcessOptions {
  /** The sidecar's complete environment (nothing is inherited); its Claude Code children inherit it. */
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /**
   * The script the child runs. Default: the built entry (`dist/main.js`), after checking that it exists
   * and is not older than its sources (else `SidecarNotBuiltError`, which says to run `npm run build`).
   * `SIDECAR_SOURCE_ENTRY` runs the TypeScript directly, for development.
   */
  entry?: string;
  /**
   * The Node that runs `entry`. Default: the one running the caller (`process.execPath`). The built entry runs on
   * Node 20 and later; the TypeScript source needs Node 22.18 or later.
   */
  node?: string;
  /** Per-request deadline unless a request names its own. Default 30 s. */
  requestTimeoutMs?: number;
  /** Stderr lines kept, newest last. Default 500. */
  maxStderrLines?: number;
  /** Keep every stdout message in `log`. Off by default: a long-lived sidecar's log would grow without bound. */
  keepLog?: boolean;
}

/** One message the sidecar wrote to stdout: an event, or a response (`ok`/`error`) carrying its request id. */
export interface SidecarLogEntry {
  /** Position among all the lines this sidecar wrote (blank ones aside), to order responses against events. */
  readonly index: number;
  readonly type: string;
  readonly id: string | undefined;
  readonly payload: Record<string, unknown>;
}

export interface SidecarExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What threw: a client listener (`SidecarListenerKind`), an `onLogEntry` or an `onStderrLine` listener. */
export type SidecarProcessListenerKind = SidecarListenerKind | 'log_entry' | 'stderr_line';

export interface SidecarRequestLine {
  readonly type: RequestType;
  readonly payload: Record<string, unknown>;
}

/** A request on its way, with the id its response will carry. */
export interface SentRequest<T = unknown> {
  readonly id: string;
  /** Settles like `SidecarClient.request`: the `ok` payload, or a `SidecarRequestError`. */
  readonly response: Promise<T>;
}

/** A sidecar child (`node dist/main.js`) in its own process group, driven over stdio by the protocol client. */
export interface SidecarProcess {
  readonly pid: number;
  readonly client: SidecarClient;
  /** Every stdout message in wire order when `keepLog` is set; empty otherwise. */
  readonly log: readonly SidecarLogEntry[];
  /** The last `maxStderrLines` stderr lines. Never echoed anywhere: only ids and counts belong in them. */
  readonly stderrLines: readonly string[];
  /**
   * The exit code or signal, once the process has exited and its stderr has delivered its last lines (or
   * half a second has passed), so `stderrTail()` is complete by then. Never rejects.
   */
  readonly exited: Promise<SidecarExit>;
  /** Calls `listener` with each stdout message, before the client handles it. */
  onLogEntry(listener: (entry: SidecarLogEntry) => void): () => void;
  /**
   * Calls `listener` with each stderr line as it arrives (cut at 8 KiB), and its parsed diagnostic when it
   * is a `PREFIX <json>` record: a host turns those into structured log records.
   */
  onStderrLine(listener: (line: string, diagnostic: SidecarDiagnostic | undefined) => void): () => void;
  /**
   * The last stderr lines that are not diagnostics (a crash's stack trace, a warning), newest last, at most
   * `maxLines` (default 20, at most 50 are kept) and `maxChars` (default 2000, the newest kept): the tail a
   * host puts in `sidecar exited: <tail>`.
   */
  stderrTail(options?: { maxLines?: number; maxChars?: number }): string;
  /**
   * A listener of this process or of its client threw. Without a hook the error becomes a process
   * warning; it never becomes an uncaught exception.
   */
  onListenerError(hook: (error: unknown, kind: SidecarProcessListenerKind) => void): () => void;
  /** The `PREFIX <json>` records among the kept stderr lines, of one prefix when given. */
  diagnostics(prefix?: string): SidecarDiagnostic[];
  request<T = unknown>(type: RequestType, payload: Record<string, unknown>, options?: RequestOptions): Promise<T>;
  send<T = unknown>(type: RequestType, payload: Record<string, unknown>, options?: RequestOptions): SentRequest<T>;
  /** Sends the requests in one stdin chunk, so the sidecar reads them in the same tick. */
  sendTogether(requests: readonly SidecarRequestLine[], options?: RequestOptions): SentRequest[];
  /** Writes raw lines to stdin in one chunk (malformed-input tests). */
  writeLines(lines: readonly string[]): void;
  /**
   * Ends stdin, which makes the sidecar close every session and exit. When it has not exited within
   * `timeoutMs` it gets SIGTERM, then its whole process group SIGKILL; whatever it left in its group is
   * killed too, so no Claude Code child outlives it. Calling it again returns the same exit.
   */
  stop(options?: { timeoutMs?: number }): Promise<SidecarExit>;
}

export async function spawnSidecarProcess(options: SidecarProcessOptions): Promise<SidecarProcess> {
  const entry = options.entry ?? (await builtSidecarEntry());
  const child = spawn(options.node ?? process.execPath, [entry], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: a terminal's Ctrl-C belongs to whoever runs it, and `stop()` can reach every
    // Claude Code child it started in one signal.
    detached: true,
  });
  const stderrClosed = once(child.stderr, 'close').then(
    () => undefined,
    () => undefined,
  );
  const exited = new Promise<SidecarExit>((resolve) => {
    child.once('exit', (code, signal) => {
      void settlesWithin(stderrClosed, STDERR_DRAIN_MS).then(() => resolve({ code, signal }));
    });
  });
  // After the spawn, 'error' only reports a failed kill of a process that is gone; `exited` tells the rest.
  child.on('error', () => undefined);
  await once(child, 'spawn');
  const pid = child.pid;
  if (pid === undefined) throw new Error('the sidecar process has no pid');

  const listenerErrors = new ListenerErrorHooks<SidecarProcessListenerKind>('SidecarProcess');
  const stderrListeners = listenerErrors.listeners<[string, SidecarDiagnostic | undefined]>('stderr_line');
  const tailLines: string[] = [];
  const stderrLines = captureLines(child.stderr, {
    maxLines: options.maxStderrLines ?? DEFAULT_MAX_STDERR_LINES,
    maxLineLength: MAX_STDERR_LINE_LENGTH,
    onLine: (line) => {
      const diagnostic = parseSidecarDiagnostic(line);
      if (diagnostic === undefined) {
        tailLines.push(line);
        if (tailLines.length > TAIL_LINES_KEPT) tailLines.shift();
      }
      stderrListeners.emit([line, diagnostic]);
    },
  });

  const log: SidecarLogEntry[] = [];
  const logListeners = listenerErrors.listeners<SidecarLogEntry>('log_entry');
  let written = 0;
  const record = (line: string): void => {
    if (line.trim() === '') return;
    const index = written++;
    // The client parses every line itself; a second parse here is paid only when someone takes the entries.
    if (!options.keepLog && logListeners.size === 0) return;
    const parsed = parseSidecarLine(line);
    if (parsed.kind !== 'message') return;
    const { type, id, payload } = parsed.message;
    const entry: SidecarLogEntry = { index, type, id, payload: isPlainObject(payload) ? payload : {} };
    if (options.keepLog) log.push(entry);
    logListeners.emit(entry);
  };

  // The client asks for an id as it sends; `send` hands it the one it already told its caller.
  let nextRequestId: string | undefined;
  const client = new SidecarClient(
    tapLines(createStdioLineTransport({ input: child.stdout, output: child.stdin }), record),
    {
      defaultTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      createRequestId: () => {
        const id = nextRequestId ?? randomUUID();
        nextRequestId = undefined;
        return id;
      },
    },
  );

  const send = <T>(type: RequestType, payload: Record<string, unknown>, requestOptions?: RequestOptions) => {
    const id = randomUUID();
    nextRequestId = id;
    return { id, response: client.request<T>(type, payload, requestOptions) };
  };

  let stopped: Promise<SidecarExit> | undefined;
  const stop = async (timeoutMs: number): Promise<SidecarExit> => {
    await client.close();
    // Nothing reads stdout any more; draining it keeps a sidecar that is still writing from blocking.
    child.stdout.resume();
    if (!(await settlesWithin(exited, timeoutMs))) {
      child.kill('SIGTERM');
      if (!(await settlesWithin(exited, TERMINATE_GRACE_MS))) signalProcessGroup(pid, 'SIGKILL');
    }
    const exit = await exited;
    signalProcessGroup(pid, 'SIGKILL');
    return exit;
  };

  return {
    pid,
    client,
    log,
    stderrLines,
    exited,
    onLogEntry: (listener) => logListeners.add(listener),
    onStderrLine: (listener) => stderrListeners.add(([line, diagnostic]) => listener(line, diagnostic)),
    stderrTail: ({ maxLines = DEFAULT_TAIL_LINES, maxChars = DEFAULT_TAIL_CHARS } = {}) =>
      maxLines > 0 && maxChars > 0 ? tailLines.slice(-maxLines).join('\n').slice(-maxChars) : '',
    onListenerError: (hook) => {
      const fromClient = client.onListenerError(hook);
      const fromProcess = listenerErrors.add(hook);
      return () => {
        fromClient();
        fromProcess();
      };
    },
    diagnostics: (prefix) =>
      stderrLines.flatMap((line) => {
        const diagnostic = parseSidecarDiagnostic(line);
        return diagnostic && (prefix === undefined || diagnostic.prefix === prefix) ? [diagnostic] : [];
      }),
    request: (type, payload, requestOptions) => client.request(type, payload, requestOptions),
    send,
    sendTogether: (requests, requestOptions) => {
      child.stdin.cork();
      try {
        return requests.map((request) => send(request.type, request.payload, requestOptions));
      } finally {
        child.stdin.uncork();
      }
    },
    writeLines: (lines) => {
      if (child.stdin.writableEnded || child.stdin.destroyed) return;
      child.stdin.write(lines.map((line) => `${line}\n`).join(''));
    },
    stop: (stopOptions = {}) => {
      stopped ??= stop(stopOptions.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS);
      return stopped;
    },
  };
}

async function settlesWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  const timer = new AbortController();
  try {
    return await Promise.race([promise.then(() => true), delay(timeoutMs, false, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}

/** Hands every received line to `record` before the client sees it, so log order is wire order. */
function tapLines(inner: LineTransport, record: (line: string) => void): LineTransport {
  return {
    start: (handlers) =>
      inner.start({
        ...handlers,
        onLine: (line) => {
          record(line);
          handlers.onLine(line);
        },
      }),
    send: (line) => inner.send(line),
    close: () => inner.close(),
  };
}
