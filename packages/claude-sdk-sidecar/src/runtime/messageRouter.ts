import type { SDKMessage, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import type { DispatchPhase, EmitEvent } from '@outrigger/protocol';
import type { StreamProjector } from '../projection/index.ts';
import { RecentKeys } from '../shared/recentKeys.ts';
import {
  durableCheckpointUuid,
  isRootMessage,
  messageUuid,
  type RootPromptEcho,
  rootPromptEcho,
  systemSubtype,
} from '../shared/sdkMessages.ts';
import { isAuthenticationRejection } from './authRejection.ts';
import { lifecycleObservation } from './lifecycleObservation.ts';
import type { QueryGeneration } from './queryGeneration.ts';
import type { RuntimeTurn, TurnLifecycle } from './turnLifecycle.ts';

/** What the router needs from the session that owns it. */
export interface MessageRouterHost {
  readonly turns: TurnLifecycle;
  readonly projector: StreamProjector;
  readonly emit: EmitEvent;
  awaitIdentity(turn: RuntimeTurn, phase: DispatchPhase, generation: QueryGeneration): Promise<void>;
  /** A root result for a Turn whose identity is bound. */
  settleRootResult(result: SDKResultMessage, turn: RuntimeTurn, generation: QueryGeneration): void;
  /** The API refused the credentials before the Turn was accepted. */
  rejectAuthentication(turn: RuntimeTurn, generation: QueryGeneration): void;
  /** Every message released for a Turn (watchdog, resume position, assistant errors). */
  observeTurnOutput(message: SDKMessage, turn: RuntimeTurn): void;
  /** True while a synthetic turn waits for the background continuation it was reserved for. */
  continuationAwaited(): boolean;
  /** Session-level facts (effective model, background work) from every message before it is routed. */
  observeSession(message: SDKMessage): void;
  /**
   * Goal evidence in every message, before the session sees it (an idle provider first reports what the
   * transcript says about the Goal); a promise when the router must wait for it.
   */
  observeGoal(message: SDKMessage): Promise<void> | undefined;
  /** Goal verdicts still in the transcript, read before a root result settles; a promise when there is work. */
  drainGoalEvidence(): Promise<void> | undefined;
  /**
   * Claude Code started one of the session's prompts (its echo arrived), before its Turn is bound: a Turn
   * still holding background follow-up output ends first.
   */
  onUserPromptStarted(): void;
  /** A real user prompt activated its Turn. */
  onUserTurnActivated(turn: RuntimeTurn): void;
  /**
   * True when a root message must be dropped unseen: the late output of a background continuation that
   * already timed out.
   */
  rejectsLateOutput(message: SDKMessage): boolean;
}

/**
 * Routes the SDK messages of a Query generation, in order: prompt echoes bind identity, output is held
 * behind the identity barrier of its Turn, root results settle, everything else goes to the projector.
 */
export class MessageRouter {
  readonly #host: MessageRouterHost;
  /** Root assistant messages already routed: Claude Code re-sends those it keeps across a compact boundary. */
  readonly #routedAssistants = new RecentKeys(1024);

  constructor(host: MessageRouterHost) {
    this.#host = host;
  }

  async route(message: SDKMessage, generation: QueryGeneration): Promise<void> {
    const host = this.#host;
    const turns = host.turns;
    const observation = lifecycleObservation(message, turns.active?.turnId, host.continuationAwaited());
    if (observation) host.emit('sdk_lifecycle_observed', observation);
    const goalWork = host.observeGoal(message);
    if (goalWork) {
      await goalWork;
      if (generation.revoked) return;
    }
    host.observeSession(message);

    if (isAuthenticationRejection(message)) {
      const target = turns.outputTarget();
      if (target && !target.synthetic && !target.providerTurnId) {
        host.rejectAuthentication(target, generation);
        return;
      }
    }

    const echo = rootPromptEcho(message);
    if (echo) {
      this.#routeEcho(message, echo);
      return;
    }

    const phase = gatedPhase(message);
    if (phase) {
      await this.#routeGated(message, phase, generation);
      return;
    }

    const turn = turns.active;
    host.projector.project(message, turn?.turnId);
    const checkpoint = durableCheckpointUuid(message);
    if (turn && checkpoint) turns.checkpoint(turn, checkpoint);
  }

  #routeEcho(message: SDKMessage, echo: RootPromptEcho): void {
    const { turns, projector } = this.#host;
    const turn = turns.withCorrelation(echo.correlationId);
    if (turn) this.#host.onUserPromptStarted();
    if (turn?.canceling) {
      // Claude Code started a prompt whose cancel is still deciding (it was asked to withdraw it): the turn
      // is running after all, and as the active turn its output is dropped until the cancel ends it.
      turns.activate(turn);
      return;
    }
    if (turn && turns.bindIdentity(turn, echo.providerTurnId) !== 'conflict') {
      turns.activate(turn);
      this.#host.onUserTurnActivated(turn);
      projector.project(message, turn.turnId);
      turns.checkpoint(turn, echo.providerTurnId);
      return;
    }
    // An echo of a prompt no Turn waits for (guidance) belongs to the running Turn and moves its checkpoint.
    const active = turns.active;
    projector.project(message, active?.turnId);
    const checkpoint = messageUuid(message);
    if (active && checkpoint) turns.checkpoint(active, checkpoint);
  }

  async #routeGated(message: SDKMessage, phase: DispatchPhase, generation: QueryGeneration): Promise<void> {
    const host = this.#host;
    const turns = host.turns;
    if (host.rejectsLateOutput(message)) return;
    if (message.type === 'assistant' && isRootMessage(message) && !this.#routedAssistants.add(message.uuid)) return;
    let target = turns.outputTarget();
    if (!target) {
      if (message.type === 'assistant' && isRootMessage(message)) {
        target = turns.openSynthetic(generation.id);
      } else {
        if (message.type !== 'result') host.projector.project(message, undefined);
        return;
      }
    }
    if (target.canceling) return;
    await host.awaitIdentity(target, phase, generation);
    if (target.settled || target.canceling || generation.revoked) return;
    turns.activate(target);
    host.observeTurnOutput(message, target);
    if (message.type === 'result' && isRootMessage(message)) {
      const drained = host.drainGoalEvidence();
      if (drained) {
        await drained;
        if (target.settled || target.canceling || generation.revoked) return;
      }
      host.settleRootResult(message, target, generation);
      return;
    }
    host.projector.project(message, target.turnId);
    const checkpoint = durableCheckpointUuid(message);
    if (checkpoint) turns.checkpoint(target, checkpoint);
  }
}

/** Output that may only be published once its Turn's identity is bound, and the phase it puts the Turn in. */
function gatedPhase(message: SDKMessage): DispatchPhase | undefined {
  switch (message.type) {
    case 'stream_event':
    case 'assistant':
    case 'result':
      return 'streaming';
    case 'tool_progress':
      return 'running_tool';
    case 'system':
      // Compaction runs before the prompt's echo (a `/compact` has none until it is done), yet it is that turn's.
      return isCompactionProgress(message) ? 'streaming' : undefined;
    default:
      return undefined;
  }
}

function isCompactionProgress(message: SDKMessage): boolean {
  const subtype = systemSubtype(message);
  if (subtype === 'compact_boundary') return true;
  if (subtype !== 'status') return false;
  const record = message as Record<string, unknown>;
  return record.status === 'compacting' || record.compact_result !== undefined;
}
