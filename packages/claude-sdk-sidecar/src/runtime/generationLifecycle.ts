import { IdleQueryTimer } from './idleQueryTimer.ts';
import type { QueryGeneration, ShutdownOptions } from './queryGeneration.ts';

export interface GenerationLifecycleOptions {
  /** Builds the Query of generation `id` with the session's options as they are now. */
  create: (id: number) => QueryGeneration;
  /** How long an idle session keeps its Query. */
  idleTtlMs: number;
  /** Drain budget of every shutdown this lifecycle starts. */
  closeDrainTimeoutMs: number;
  /** No turn of the session is unsettled. */
  turnsIdle: () => boolean;
  /** Background work still owes output in the live Query, so it must not be retired. */
  hasBackgroundWork: () => boolean;
}

/** Budget of the interrupt before a failed or abandoned Query is closed. */
const INTERRUPT_TIMEOUT_MS = 1_000;

/**
 * The session's live Query generation and the ones still shutting down. A generation is created when a
 * turn needs one and then serves turn after turn; it goes when the session is idle for the TTL (never
 * while background work runs), when a setting needs a new Query, or when it is released to a cancel or
 * discarded after a failure. Shutdowns run in the background and are tracked so `close()` can wait for
 * every child.
 */
export class GenerationLifecycle {
  readonly #options: GenerationLifecycleOptions;
  readonly #idle: IdleQueryTimer;
  readonly #stopping = new Set<Promise<unknown>>();
  #current: QueryGeneration | undefined;
  #nextId = 1;
  #closed = false;

  constructor(options: GenerationLifecycleOptions) {
    this.#options = options;
    this.#idle = new IdleQueryTimer(options.idleTtlMs, () => this.#onIdleExpired());
  }

  /** The live generation, if any; a revoked one is never live. */
  get current(): QueryGeneration | undefined {
    return this.#current;
  }

  /** The live generation, created if there is none. */
  ensure(): QueryGeneration {
    const current = this.#current;
    if (current && !current.revoked) return current;
    const generation = this.#options.create(this.#nextId);
    this.#nextId++;
    this.#current = generation;
    return generation;
  }

  /** Whether this generation still serves the session. */
  isCurrent(generation: QueryGeneration | undefined): boolean {
    return generation !== undefined && this.#current === generation && !generation.revoked;
  }

  /** Takes the generation out of service without stopping it: the caller shuts it down. */
  release(generation: QueryGeneration): void {
    if (this.#current === generation) this.#current = undefined;
  }

  /** The session went idle: the TTL starts (over). */
  armIdle(): void {
    if (!this.#closed) this.#idle.arm();
  }

  /** A turn is coming: the live Query stays. */
  disarmIdle(): void {
    this.#idle.disarm();
  }

  /** Takes an idle Query out of service; the next turn resumes the session in a new one. */
  retire(generation: QueryGeneration): void {
    this.#idle.disarm();
    this.release(generation);
    void this.#stop(generation, { interrupt: false }).catch(() => undefined);
  }

  /** Retires the live generation unless a turn or background work still needs it. */
  retireIfIdle(generation: QueryGeneration): void {
    if (this.#current !== generation || !this.#options.turnsIdle() || this.#options.hasBackgroundWork()) return;
    this.retire(generation);
  }

  /** A failed generation: out of service at once, interrupted and closed in the background. */
  discard(generation: QueryGeneration): void {
    this.release(generation);
    void this.#stop(generation, { interrupt: true, interruptTimeoutMs: INTERRUPT_TIMEOUT_MS }).catch(() => undefined);
  }

  /**
   * A continuation that never started is given up. Claude Code keeps the interrupted follow-up queued and
   * would answer it with the next prompt, so a Query with nothing else to do is retired (interrupt, then
   * close); one that still serves a turn is only interrupted, and its late output is rejected.
   */
  async abandonContinuation(): Promise<void> {
    const generation = this.#current;
    if (!generation) return;
    if (!this.#options.turnsIdle()) {
      await generation.query.interrupt?.();
      return;
    }
    this.#idle.disarm();
    this.release(generation);
    await this.#stop(generation, { interrupt: true, interruptTimeoutMs: INTERRUPT_TIMEOUT_MS });
  }

  /** Permanent: closes the live generation (without interrupt) and stops creating timers. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#idle.disarm();
    const generation = this.#current;
    this.#current = undefined;
    if (generation) await generation.shutdown({ interrupt: false, drainTimeoutMs: this.#options.closeDrainTimeoutMs });
  }

  /** Resolves once every generation shut down in the background is done. */
  async stopped(): Promise<void> {
    await Promise.allSettled(this.#stopping);
  }

  /**
   * The idle TTL ran out: free the child. Background work still owes output in this Query, so while it
   * runs the Query stays and the TTL starts over.
   */
  #onIdleExpired(): void {
    const generation = this.#current;
    if (!generation || this.#closed || !this.#options.turnsIdle()) return;
    if (this.#options.hasBackgroundWork()) {
      this.#idle.arm();
      return;
    }
    this.retire(generation);
  }

  #stop(generation: QueryGeneration, options: ShutdownOptions): Promise<unknown> {
    const stopped = generation.shutdown({ drainTimeoutMs: this.#options.closeDrainTimeoutMs, ...options });
    const settled = stopped.catch(() => undefined);
    this.#stopping.add(settled);
    void settled.then(() => this.#stopping.delete(settled));
    return stopped;
  }
}
