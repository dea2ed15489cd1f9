import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { type SidecarExit, type SidecarProcess, spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import {
  type RequestOptions,
  type RequestType,
  type SidecarClient,
  type SidecarEvent,
  type SidecarProtocolError,
  SidecarRequestError,
} from '@outrigger/protocol';
import { subscribe } from './listeners.ts';
import { HOST_MARK_VARIABLE, killSurvivors, markedProcesses, SIDECAR_MARK_VARIABLE } from './processMarks.ts';

export type { SidecarExit };

/**
 * One sidecar process as the supervisor sees it. This file is the host's only use of the sidecar's
 * process API, so a change there is a change here alone.
 */
export interface SidecarConnection {
  readonly pid: number;
  request<T>(type: RequestType, payload: Record<string, unknown>, options?: RequestOptions): Promise<T>;
  onEvent(listener: (event: SidecarEvent) => void): () => void;
  onProtocolError(listener: (error: SidecarProtocolError) => void): () => void;
  /** The connection ended: the sidecar closed its stdout (it died, or is dying), or `stop()` closed it. */
  onClose(listener: () => void): () => void;
  /** Each stderr line (diagnostic records and anything else the sidecar or Node wrote there). */
  onStderrLine(listener: (line: string) => void): () => void;
  /** Resolves once the process exited and the stderr it wrote before that was delivered. */
  readonly exited: Promise<SidecarExit>;
  /**
   * Ends stdin (the sidecar closes its sessions and exits), then kills what is left of its process group and
   * every process that still carries its mark (tools Claude Code ran in groups of their own).
   */
  stop(): Promise<SidecarExit>;
  /** SIGKILLs the whole process group and everything carrying its mark now, synchronously: the host is exiting. */
  killNow(): void;
}

export type SpawnSidecarConnection = () => Promise<SidecarConnection>;

export interface SidecarConnectionOptions {
  /** The sidecar's complete environment: the model backend's (its Claude Code children inherit it). */
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  requestTimeoutMs?: number;
  /** How long `stop()` waits for a clean exit before SIGTERM, then SIGKILL of the group. Default 10 s. */
  stopTimeoutMs?: number;
  /** `hostMarkFor(databasePath)`: lets the next run of the host find what this one left if it is killed. */
  hostMark?: string;
}

/** Lines read but not yet handed on stay in the process's bounded buffer; this is its size. */
const STDERR_BUFFER_LINES = 2_000;
const STDERR_POLL_MS = 100;
/** Node may report the exit before the last stderr chunk was read. */
const STDERR_SETTLE_MS = 30;

export async function spawnSidecarConnection(options: SidecarConnectionOptions): Promise<SidecarConnection> {
  // Everything the sidecar starts inherits this: what escaped its process group is found by it.
  const mark = randomUUID();
  const child = await spawnSidecarProcess({
    env: {
      ...options.env,
      [SIDECAR_MARK_VARIABLE]: mark,
      ...(options.hostMark === undefined ? {} : { [HOST_MARK_VARIABLE]: options.hostMark }),
    },
    cwd: options.cwd,
    requestTimeoutMs: options.requestTimeoutMs,
    maxStderrLines: STDERR_BUFFER_LINES,
  });
  const stderrListeners = new Set<(line: string) => void>();
  const emitStderr = (line: string): void => {
    for (const listener of stderrListeners) {
      try {
        listener(line);
      } catch {
        // A listener's failure is its own; the next line still goes to every listener.
      }
    }
  };
  const follower = followStderr(child, emitStderr);
  const exited = child.exited.then(async (exit) => {
    await new Promise((resolve) => setTimeout(resolve, STDERR_SETTLE_MS));
    follower.stop();
    return exit;
  });
  const client: SidecarClient = child.client;
  let exitSeen = false;
  void child.exited.then(() => {
    exitSeen = true;
  });
  return {
    pid: child.pid,
    request: <T>(type: RequestType, payload: Record<string, unknown>, requestOptions?: RequestOptions) => {
      // Today's stdio transport has no 'error' listener on the child's stdin, so a write to a dead child
      // is an uncaught EPIPE; never write to one we know (or the kernel says) is gone. The process API's
      // own fix closes the remaining window (a death during the write).
      if (exitSeen || client.closed || !isRunning(child.pid)) {
        return Promise.reject(
          new SidecarRequestError(`sidecar connection closed before ${type} was sent`, {
            reason: 'closed',
            requestId: '',
            requestType: type,
          }),
        );
      }
      try {
        return client.request<T>(type, payload, requestOptions);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    onEvent: (listener) => client.onEvent(listener),
    onProtocolError: (listener) => client.onProtocolError(listener),
    onClose: (listener) => client.onClose(listener),
    onStderrLine: (listener) => subscribe(stderrListeners, listener),
    exited,
    stop: async () => {
      const exit = await child.stop({ timeoutMs: options.stopTimeoutMs });
      await exited;
      killSurvivors(markedProcesses(SIDECAR_MARK_VARIABLE, mark));
      return exit;
    },
    killNow: () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
      killSurvivors(markedProcesses(SIDECAR_MARK_VARIABLE, mark));
    },
  };
}

const procAvailable = existsSync('/proc/self/stat');

/** False once the process is gone or a zombie (Linux); true where /proc cannot tell. */
function isRunning(pid: number): boolean {
  if (!procAvailable) return true;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

type StderrLineSource = { onStderrLine?: (listener: (line: string) => void) => () => void };

/**
 * Hands each stderr line to `emit` once. A process API with `onStderrLine` pushes them; today's keeps
 * them in a bounded array that stays the same object, which is drained here on a short unref'd timer.
 */
function followStderr(child: SidecarProcess, emit: (line: string) => void): { stop(): void } {
  const push = (child as unknown as StderrLineSource).onStderrLine;
  if (typeof push === 'function') {
    const off = push.call(child, (line) => emit(line));
    return { stop: off };
  }
  const lines = child.stderrLines as string[];
  const drain = (): void => {
    if (lines.length === 0) return;
    for (const line of lines.splice(0)) emit(line);
  };
  const timer = setInterval(drain, STDERR_POLL_MS);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      drain();
    },
  };
}
