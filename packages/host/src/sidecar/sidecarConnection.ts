import { randomUUID } from 'node:crypto';
import { type SidecarExit, spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import type {
  RequestOptions,
  RequestPayloadInput,
  RequestResult,
  RequestType,
  SidecarEvent,
  SidecarProtocolError,
} from '@outrigger/protocol';
import { HOST_MARK_VARIABLE, killSurvivors, markedProcesses, SIDECAR_MARK_VARIABLE } from './processMarks.ts';

export type { SidecarExit };

/**
 * One sidecar process as the supervisor sees it. This file is where the host spawns and drives the
 * sidecar's process API (`spawnSidecarProcess`), so a change there is a change here alone; the API
 * delivers each stderr line, waits for the last of them before `exited`, and turns a write to a dead
 * sidecar into a `closed` request error. What this adds is the mark that finds the processes that
 * left the sidecar's group.
 */
export interface SidecarConnection {
  readonly pid: number;
  request<K extends RequestType>(
    type: K,
    payload: RequestPayloadInput<K>,
    options?: RequestOptions,
  ): Promise<RequestResult<K>>;
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
  /** The sidecar script; unset: the sidecar package's built entry (checked to be fresh). */
  entry?: string;
  requestTimeoutMs?: number;
  /** How long `stop()` waits for a clean exit before SIGTERM, then SIGKILL of the group. Default 10 s. */
  stopTimeoutMs?: number;
  /** `hostMarkFor(databasePath)`: lets the next run of the host find what this one left if it is killed. */
  hostMark?: string;
}

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
    entry: options.entry,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  // Tools Claude Code ran in process groups of their own escape a group kill; they still carry the mark.
  const killMarked = (): void => {
    killSurvivors(markedProcesses(SIDECAR_MARK_VARIABLE, mark));
  };
  return {
    pid: child.pid,
    request: (type, payload, requestOptions) => child.request(type, payload, requestOptions),
    onEvent: (listener) => child.client.onEvent(listener),
    onProtocolError: (listener) => child.client.onProtocolError(listener),
    onClose: (listener) => child.client.onClose(listener),
    onStderrLine: (listener) => child.onStderrLine((line) => listener(line)),
    exited: child.exited,
    stop: async () => {
      const exit = await child.stop({ timeoutMs: options.stopTimeoutMs });
      killMarked();
      return exit;
    },
    killNow: () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
      killMarked();
    },
  };
}
