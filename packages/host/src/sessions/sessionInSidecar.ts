import type {
  CancelResult,
  InteractiveResult,
  RequestOptions,
  RequestPayloadInput,
  RequestResult,
  RequestType,
} from '@outrigger/protocol';
import { HostError } from '../hostError.ts';
import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import { SESSION_MARK_VARIABLE } from '../sidecar/processMarks.ts';
import { classifySidecarFailure, failureName, hostErrorOf } from '../sidecar/sidecarFailure.ts';
import type { SessionRecord } from '../store/records.ts';
import { type CancelBudgets, cancelRequestTimeoutMs } from './cancelBudgets.ts';
import { forkResumeEnv } from './forkResumeEnv.ts';
import { ToolProcesses } from './toolProcesses.ts';

/** The sidecar as a session uses it (the `SidecarSupervisor`). */
export interface SidecarPort {
  ensure(): Promise<number>;
  isLive(generation: number): boolean;
  request<K extends RequestType>(
    generation: number,
    type: K,
    payload: RequestPayloadInput<K>,
    options?: RequestOptions,
  ): Promise<RequestResult<K>>;
}

/** The deadline of `start` in the sidecar, for a new session (the manager) and a restarted one alike. */
export const START_TIMEOUT_MS = 120_000;
const SUBMIT_TIMEOUT_MS = 15_000;

export interface SessionInSidecarDeps {
  readonly sidecar: SidecarPort;
  readonly logger: RuntimeLogger;
  /** How long an answer's acknowledgement may take before it counts as lost. Default 15 s. */
  readonly submitTimeoutMs?: number;
}

/**
 * The session as the sidecar holds it: the generation it was last `start`ed on, and the requests whose
 * answers change that or what the session's Claude Code left running (start, submit, close, cancel).
 */
export class SessionInSidecar {
  readonly #sessionId: string;
  readonly #deps: SessionInSidecarDeps;
  readonly #tools: ToolProcesses;
  #startedOn: number | undefined;

  constructor(sessionId: string, deps: SessionInSidecarDeps, startedOn?: number) {
    this.#sessionId = sessionId;
    this.#deps = deps;
    this.#startedOn = startedOn;
    this.#tools = new ToolProcesses(sessionId, deps.logger);
  }

  /** The sidecar generation this session was last `start`ed on. */
  get startedOn(): number | undefined {
    return this.#startedOn;
  }

  /** Its sidecar exited: the session is started again on the next one. */
  forget(): void {
    this.#startedOn = undefined;
  }

  /** Claude Code died under a turn: what it ran in process groups of its own is left over. */
  reapOrphans(): Promise<void> {
    return this.#tools.reapOrphans();
  }

  /** The generation of the sidecar this session is started on, while that sidecar lives. */
  liveGeneration(): number | undefined {
    const generation = this.#startedOn;
    return generation !== undefined && this.#deps.sidecar.isLive(generation) ? generation : undefined;
  }

  /** Starts the session in the live sidecar (spawning it first) unless it already runs there. */
  async ensureStarted(session: SessionRecord, hasTranscript: boolean): Promise<number> {
    let generation: number;
    try {
      generation = await this.#deps.sidecar.ensure();
    } catch (error) {
      throw hostErrorOf(classifySidecarFailure(error), 'start the sidecar');
    }
    if (this.#startedOn === generation) return generation;
    // A continued session resumes its Claude Code session before it ran a turn of its own.
    const restore = (hasTranscript || session.continuedFrom !== null) && session.resumeCursor !== null;
    try {
      await this.#deps.sidecar.request(generation, 'start', startPayload(session, restore), {
        timeoutMs: START_TIMEOUT_MS,
      });
    } catch (error) {
      throw hostErrorOf(classifySidecarFailure(error), 'start the session');
    }
    this.#startedOn = generation;
    this.#deps.logger.info(
      {
        event: 'session.started_in_sidecar',
        sessionId: this.#sessionId,
        generation,
        kind: restore ? 'restore' : 'fresh',
      },
      'session started in the sidecar',
    );
    return generation;
  }

  async submit(generation: number, submission: RequestPayloadInput<'submit_interactive'>): Promise<InteractiveResult> {
    try {
      return await this.#deps.sidecar.request(generation, 'submit_interactive', submission, {
        timeoutMs: this.#deps.submitTimeoutMs ?? SUBMIT_TIMEOUT_MS,
      });
    } catch (error) {
      const failure = classifySidecarFailure(error);
      switch (failure.kind) {
        case 'gone':
          throw new HostError('gone', 'the sidecar that asked has exited');
        case 'refused':
          throw new HostError('gone', `the agent no longer takes this answer: ${failure.message}`);
      }
    }
    // The acknowledgement was lost (time-out): ask what became of the submission instead of sending it again.
    try {
      return await this.#deps.sidecar.request(generation, 'interactive_disposition', submission);
    } catch (error) {
      const failure = classifySidecarFailure(error);
      if (failure.kind === 'gone') throw new HostError('gone', 'the sidecar that asked has exited');
      throw hostErrorOf(failure, 'confirm the answer');
    }
  }

  async close(): Promise<void> {
    const generation = this.liveGeneration();
    this.#startedOn = undefined;
    if (generation === undefined) return;
    const before = this.#tools.snapshot();
    try {
      await this.#deps.sidecar.request(generation, 'close', { agentSessionId: this.#sessionId });
      this.#tools.reapAfterGrace(before, 'close');
    } catch (error) {
      this.#deps.logger.warn(
        { event: 'session.close_failed', sessionId: this.#sessionId, errorName: failureName(error) },
        'the sidecar did not confirm closing the session',
      );
    }
  }

  /** `cancel` in the sidecar; when it stopped the session's Claude Code, what that ran is reaped after a grace. */
  async requestCancel(generation: number, turnId: string, budgets: CancelBudgets, why: string): Promise<CancelResult> {
    const before = this.#tools.snapshot();
    const answer = await this.#deps.sidecar.request(
      generation,
      'cancel',
      { agentSessionId: this.#sessionId, turnId, ...budgets },
      { timeoutMs: cancelRequestTimeoutMs(budgets) },
    );
    if (stoppedClaudeCode(answer)) this.#tools.reapAfterGrace(before, why);
    return answer;
  }
}

/**
 * Whether a cancel stopped the session's Claude Code, so that what it ran may be reaped. A prompt withdrawn from
 * Claude Code's queue is canceled while that Claude Code goes on serving the running turn or a background
 * follow-up: the sidecar answers `queryRetired: false` then. An original sidecar leaves the field out.
 */
function stoppedClaudeCode(answer: CancelResult): boolean {
  return answer.canceled && answer.queryRetired !== false;
}

/** `start` for a session: fresh, or restored from its resume cursor once Claude has its transcript. */
export function startPayload(
  session: Pick<SessionRecord, 'id' | 'providerSessionId' | 'cwd' | 'settings' | 'resumeCursor'> &
    Partial<Pick<SessionRecord, 'forkedFrom' | 'createdAt'>>,
  restore: boolean,
): RequestPayloadInput<'start'> {
  const { settings } = session;
  const payload: RequestPayloadInput<'start'> = {
    agentSessionId: session.id,
    providerSessionId: session.providerSessionId,
    cwd: session.cwd,
    // Claude Code and every tool it runs inherit it: a tool left running after a cancel is found by it.
    // A fork's Claude Code leaves its source's background jobs to the source (`forkResumeEnv`).
    env: { [SESSION_MARK_VARIABLE]: session.id, ...forkResumeEnv(session) },
    permissionModeId: settings.permissionMode,
    settings: {
      model: settings.model === 'default' ? '' : settings.model,
      permissionModeId: settings.permissionMode,
      planMode: settings.planMode,
      effort: settings.effort ?? '',
    },
  };
  if (restore && session.resumeCursor !== null) {
    payload.restore = true;
    payload.resumeCursor = session.resumeCursor;
  }
  return payload;
}
