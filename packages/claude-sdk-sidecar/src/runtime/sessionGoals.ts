import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { EmitEvent, ExecPayload, GoalCommand } from '@outrigger/protocol';
import { GoalExecQueue } from '../goals/goalExecQueue.ts';
import { GoalProjection, type GoalTurn } from '../goals/goalProjection.ts';
import { GoalTranscriptTail, sessionTranscriptPath, type TranscriptLocation } from '../goals/goalTranscript.ts';
import { stringField, systemSubtype } from '../shared/sdkMessages.ts';
import type { RuntimeTurn } from './turnLifecycle.ts';

/** An `exec` with Goal fields, waiting in the Goal queue for its batch. */
interface GoalExec {
  readonly turnId: string;
  readonly command: GoalCommand;
  readonly payload: ExecPayload;
}

export interface SessionGoalsOptions {
  emit: EmitEvent;
  /** Hands a Goal command, once its batch is complete, to the session as an ordinary turn. */
  dispatch: (payload: ExecPayload, command: GoalCommand) => void;
  /** The turn Goal observations are reported on while one runs. */
  activeTurn: () => RuntimeTurn | undefined;
  /** A restored session may hold Goal evidence from the start. */
  restored: boolean;
  /** The live Query's config dir and cwd; undefined without a live Query, and then no transcript is followed. */
  liveChild: () => Omit<TranscriptLocation, 'sessionId'> | undefined;
}

/**
 * The Goal side of a session (reference §3.2, §3.8): Goal command `exec`s batched in the Goal queue, and
 * `goal_observed` from SDK `active_goal` messages and the transcript's `goal_status` rows, reported on the
 * running turn or else the last one that ended. Until Goal evidence can exist (a restored session, a Goal
 * command or an `active_goal` message) no turn pays for reading the transcript.
 */
export class SessionGoals {
  readonly #activeTurn: () => RuntimeTurn | undefined;
  readonly #liveChild: SessionGoalsOptions['liveChild'];
  readonly #queue: GoalExecQueue<GoalExec>;
  readonly #projection: GoalProjection;
  readonly #tail = new GoalTranscriptTail();
  #inPlay: boolean;
  #lastSettledTurn: RuntimeTurn | undefined;
  /** The transcript the tail follows, as one key. */
  #followed: string | undefined;

  constructor(options: SessionGoalsOptions) {
    this.#activeTurn = options.activeTurn;
    this.#liveChild = options.liveChild;
    this.#queue = new GoalExecQueue<GoalExec>({
      emit: options.emit,
      dispatch: (exec) => options.dispatch(exec.payload, exec.command),
    });
    this.#projection = new GoalProjection(options.emit);
    this.#inPlay = options.restored;
  }

  /** Whether a Goal command of this turn still waits for its batch. */
  has(turnId: string): boolean {
    return this.#queue.has(turnId);
  }

  enqueue(payload: ExecPayload, command: GoalCommand): void {
    this.#inPlay = true;
    this.#queue.enqueue({ turnId: payload.turnId, command, payload });
  }

  /** Withdraws a command still waiting for its batch (`goal_command_canceled`); false when none waits. */
  cancelQueued(turnId: string): boolean {
    return this.#queue.cancelExact(turnId);
  }

  /** The session closed: queued commands never run, and the transcript is no longer followed. */
  close(): string[] {
    this.#tail.stop();
    return this.#queue.takeAll().map((exec) => exec.turnId);
  }

  turnSettled(turn: RuntimeTurn): void {
    this.#lastSettledTurn = turn;
  }

  /**
   * Claude Code writes Goal verdicts (`goal_status`) only to the transcript, so the tail follows it. Every
   * turn's `system/init` names the same file; only a change is looked up (the path needs a realpath).
   */
  follow(location: TranscriptLocation): void {
    const key = `${location.configDir ?? ''}\u0000${location.cwd}\u0000${location.sessionId}`;
    if (key === this.#followed) return;
    this.#followed = key;
    this.#tail.follow(sessionTranscriptPath(location));
  }

  /** The root SessionStart hook names the transcript file itself (at startup, resume, clear and compact). */
  followTranscript(path: string): void {
    if (!path) return;
    this.#followed = undefined;
    this.#tail.follow(path);
  }

  /**
   * Goal evidence in an SDK message: `active_goal` is observed, provider idle first drains the transcript
   * (a Goal still active then got no verdict), `system/init` and `compact_boundary` name the transcript.
   * A promise when the caller must wait before routing the message. Called for every SDK message, so the
   * live child is only asked for when a message names the transcript.
   */
  observe(message: SDKMessage): Promise<void> | undefined {
    const record = message as Record<string, unknown>;
    // The SDK streams `active_goal` without listing it in its message union.
    if (record.type === 'active_goal') {
      this.#inPlay = true;
      this.#projection.observe(message, this.#goalTurn());
      return undefined;
    }
    const subtype = systemSubtype(message);
    if (subtype === 'session_state_changed' && record.state === 'idle' && this.#inPlay) {
      return this.#drain().then(() => this.#projection.idle(this.#goalTurn()));
    }
    if (subtype === 'init' || subtype === 'compact_boundary') {
      const sessionId = stringField(record, 'session_id');
      const child = sessionId ? this.#liveChild() : undefined;
      if (sessionId && child) {
        this.follow({ configDir: child.configDir, sessionId, cwd: stringField(record, 'cwd') ?? child.cwd });
      }
    }
    return undefined;
  }

  /** Verdicts still in the transcript, read before a root result settles; a promise when Goals are in play. */
  drainEvidence(): Promise<void> | undefined {
    return this.#inPlay ? this.#drain() : undefined;
  }

  async #drain(): Promise<void> {
    let rows: unknown[];
    try {
      rows = await this.#tail.drain();
    } catch {
      return;
    }
    for (const row of rows) this.#projection.observe(row, this.#goalTurn());
  }

  #goalTurn(): GoalTurn | undefined {
    const turn = this.#activeTurn() ?? this.#lastSettledTurn;
    if (!turn) return undefined;
    return {
      turnId: turn.turnId,
      ...(turn.providerTurnId ? { providerTurnId: turn.providerTurnId } : {}),
      ...(turn.goal ? { action: turn.goal.action } : {}),
    };
  }
}
