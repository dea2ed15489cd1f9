import {
  eventSessionId,
  ListenerSet,
  type RequestOptions,
  type RequestPayloadInput,
  type RequestResult,
  type RequestType,
  type SidecarEvent,
} from '@outrigger/protocol';
import { errorName } from '../logging/errorName.ts';
import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import { subscribe } from './listeners.ts';
import type { SidecarConnection, SpawnSidecarConnection } from './sidecarConnection.ts';
import { SidecarStderr } from './sidecarStderr.ts';

/** Why a sidecar went away, for every session that had work on it. */
export interface SidecarExitReport {
  /** Which spawn of the sidecar it was (1, 2, …): a session started on an earlier one must `start` again. */
  readonly generation: number;
  readonly pid: number;
  readonly code: number | null;
  readonly signal: string | null;
  /** `sidecar exited: <bounded stderr tail>` (or its exit code / signal when it wrote nothing). */
  readonly message: string;
  /** The host closed it on purpose (`close()`); otherwise it died. */
  readonly expected: boolean;
}

export type SidecarUnavailableReason = 'spawn_failed' | 'exited' | 'closed';

/** No sidecar can take the request: it could not be started, it exited, or the host is closing. */
export class SidecarUnavailableError extends Error {
  override readonly name = 'SidecarUnavailableError';
  readonly reason: SidecarUnavailableReason;
  constructor(reason: SidecarUnavailableReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface SidecarSupervisorOptions {
  spawn: SpawnSidecarConnection;
  logger: RuntimeLogger;
  /** How long a sidecar that closed its stdout gets to exit before its exit is reported anyway. Default 1 s. */
  exitReportGraceMs?: number;
}

interface Live {
  readonly generation: number;
  readonly connection: SidecarConnection;
  readonly stderr: SidecarStderr;
  lost: boolean;
  expected: boolean;
  readonly reported: Promise<void>;
  reportLost(): void;
}

type SessionEventListener = (sessionId: string, event: SidecarEvent, generation: number) => void;

/**
 * The host's one sidecar process: spawned on first need, shared by every session (its events are routed
 * by `agentSessionId`), watched for death (exit, or its stdout closing) and spawned again by the next
 * need. A dead sidecar is reported once to `onExit` with a bounded, control-free stderr tail; its process
 * group is always reaped. Nothing a listener or the child does can throw into the host.
 */
export class SidecarSupervisor {
  readonly #spawn: SpawnSidecarConnection;
  readonly #logger: RuntimeLogger;
  readonly #exitReportGraceMs: number;
  readonly #sessionListeners = new Set<SessionEventListener>();
  readonly #exitListeners = new ListenerSet<SidecarExitReport>((error) =>
    this.#logger.error(
      { event: 'sidecar.listener_failed', errorName: errorName(error) },
      'a sidecar exit listener threw',
    ),
  );
  readonly #all = new Set<Live>();
  #current: Live | undefined;
  #starting: Promise<Live> | undefined;
  #generation = 0;
  #closed = false;
  readonly #killOnExit = (): void => {
    for (const live of this.#all) live.connection.killNow();
  };

  constructor(options: SidecarSupervisorOptions) {
    this.#spawn = options.spawn;
    this.#logger = options.logger;
    this.#exitReportGraceMs = options.exitReportGraceMs ?? 1_000;
  }

  /** The generation of the live sidecar, spawning one first when none lives. */
  async ensure(): Promise<number> {
    if (this.#closed) throw new SidecarUnavailableError('closed', 'the host is shutting down');
    if (this.#current !== undefined && !this.#current.lost) return this.#current.generation;
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return (await this.#starting).generation;
  }

  /** The live sidecar's generation, or undefined while none lives. */
  get generation(): number | undefined {
    return this.#current !== undefined && !this.#current.lost ? this.#current.generation : undefined;
  }

  get pid(): number | undefined {
    return this.#current?.connection.pid;
  }

  isLive(generation: number): boolean {
    return this.generation === generation;
  }

  /**
   * A request to the sidecar of `generation`. Rejects with `SidecarUnavailableError` when that sidecar
   * is gone (a session started on it must be started again on the next one), else as the client does.
   */
  request<K extends RequestType>(
    generation: number,
    type: K,
    payload: RequestPayloadInput<K>,
    options?: RequestOptions,
  ): Promise<RequestResult<K>> {
    const live = this.#current;
    if (live === undefined || live.lost || live.generation !== generation) {
      return Promise.reject(new SidecarUnavailableError('exited', `the sidecar of generation ${generation} is gone`));
    }
    return live.connection.request(type, payload, options);
  }

  /** Events of sessions (those carrying `agentSessionId`); process-level ones are logged here. */
  onSessionEvent(listener: SessionEventListener): () => void {
    return subscribe(this.#sessionListeners, listener);
  }

  onExit(listener: (report: SidecarExitReport) => void): () => void {
    return this.#exitListeners.add(listener);
  }

  /** Stops the sidecar (its sessions close, its Claude Code children end) and reaps its process group. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#starting?.catch(() => undefined);
    const all = [...this.#all];
    for (const live of all) live.expected = true;
    await Promise.all(
      all.map(async (live) => {
        await live.connection.stop().catch(() => live.connection.killNow());
        live.reportLost();
        await live.reported;
        this.#forget(live);
      }),
    );
  }

  async #start(): Promise<Live> {
    let connection: SidecarConnection;
    try {
      connection = await this.#spawn();
    } catch (error) {
      this.#logger.error(
        { event: 'sidecar.spawn_failed', errorName: errorName(error) },
        'the sidecar could not be started',
      );
      throw new SidecarUnavailableError('spawn_failed', 'the sidecar could not be started');
    }
    const generation = ++this.#generation;
    const stderr = new SidecarStderr(this.#logger, connection.pid);
    let reportLost!: () => void;
    const lostSignal = new Promise<void>((resolve) => {
      reportLost = resolve;
    });
    const live: Live = {
      generation,
      connection,
      stderr,
      lost: false,
      expected: false,
      reportLost,
      reported: lostSignal.then(() => this.#reportExit(live)),
    };
    if (this.#all.size === 0) process.on('exit', this.#killOnExit);
    this.#all.add(live);
    connection.onStderrLine((line) => stderr.line(line));
    connection.onEvent((event) => this.#route(live, event));
    connection.onProtocolError((error) =>
      this.#logger.warn(
        { event: 'sidecar.protocol_error', sidecarPid: connection.pid, reason: error.reason, type: error.type },
        error.message,
      ),
    );
    connection.onClose(() => live.reportLost());
    void connection.exited.then(
      () => live.reportLost(),
      () => live.reportLost(),
    );
    this.#logger.info({ event: 'sidecar.started', sidecarPid: connection.pid, generation }, 'sidecar started');
    if (this.#closed) {
      live.expected = true;
      await connection.stop().catch(() => connection.killNow());
      throw new SidecarUnavailableError('closed', 'the host is shutting down');
    }
    this.#current = live;
    return live;
  }

  #route(live: Live, event: SidecarEvent): void {
    const sessionId = eventSessionId(event);
    if (sessionId === undefined) {
      if (event.type === 'error') {
        this.#logger.warn(
          {
            event: 'sidecar.uncorrelated_error',
            sidecarPid: live.connection.pid,
            requestId: event.id,
            messageLength: event.payload.error.length,
          },
          'the sidecar reported an error no request waits for',
        );
      } else {
        this.#logger.debug({ event: 'sidecar.unrouted_event', type: event.type }, 'sidecar event without a session');
      }
      return;
    }
    for (const listener of this.#sessionListeners) {
      try {
        listener(sessionId, event, live.generation);
      } catch (error) {
        this.#logger.error(
          {
            event: 'sidecar.listener_failed',
            sessionId,
            type: event.type,
            errorName: errorName(error),
          },
          'a sidecar event listener threw',
        );
      }
    }
  }

  async #reportExit(live: Live): Promise<void> {
    live.lost = true;
    if (this.#current === live) this.#current = undefined;
    const { connection } = live;
    // A sidecar that closed its stdout is dying; give it a moment so the tail has its last words.
    const exit = await Promise.race([
      connection.exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), this.#exitReportGraceMs).unref()),
    ]);
    const tail = live.stderr.tail();
    const how = exit === undefined ? 'still running' : exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    const report: SidecarExitReport = {
      generation: live.generation,
      pid: connection.pid,
      code: exit?.code ?? null,
      signal: exit?.signal ?? null,
      message: `sidecar exited: ${tail === '' ? how : tail}`,
      expected: live.expected,
    };
    const fields = {
      event: 'sidecar.exited',
      sidecarPid: connection.pid,
      generation: live.generation,
      exitCode: report.code,
      signal: report.signal,
    };
    if (live.expected) this.#logger.info(fields, 'sidecar stopped');
    else this.#logger.error({ ...fields, stderrTailChars: tail.length }, 'sidecar exited unexpectedly');
    // Whatever it left in its process group (Claude Code children of a killed sidecar) goes too.
    void connection.stop().then(
      () => this.#forget(live),
      () => {
        connection.killNow();
        this.#forget(live);
      },
    );
    this.#exitListeners.emit(report);
  }

  #forget(live: Live): void {
    this.#all.delete(live);
    if (this.#all.size === 0) process.off('exit', this.#killOnExit);
  }
}
