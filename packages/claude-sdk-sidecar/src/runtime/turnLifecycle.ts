import { randomUUID } from 'node:crypto';
import type { DispatchPhase, EmitEvent, GoalCommand, SidecarEventPayload } from '@outrigger/protocol';
import { goalCommandCanceled } from '../goals/goalExecQueue.ts';
import { RecentKeys } from '../shared/recentKeys.ts';
import { CheckpointLog } from './checkpointLog.ts';

/** A canonical (host) Turn as the runtime tracks it, from `exec` to its one terminal event. */
export interface RuntimeTurn {
  readonly turnId: string;
  /** The uuid put on the outbound SDK user message. Evidence to look for, never an identity by itself. */
  readonly correlationId: string;
  readonly synthetic: boolean;
  readonly turnOrigin: string | undefined;
  /** The Goal command this exec carried; it counts as started once the turn is activated. */
  readonly goal: GoalCommand | undefined;
  /** For a synthetic turn: the root turn of the same Query whose background work it continues. */
  readonly continues: ContinuedTurn | undefined;
  generationId: number | undefined;
  providerTurnId: string | undefined;
  phase: DispatchPhase;
  active: boolean;
  /** The turn was activated at some point (it stays true after it settles). */
  activated: boolean;
  canceling: boolean;
  settled: boolean;
}

/** A settled root turn, as a synthetic continuation of its background work remembers it. */
export interface ContinuedTurn {
  readonly turnId: string;
  readonly providerTurnId: string | undefined;
  readonly generationId: number | undefined;
}

export type TurnTerminal =
  | { type: 'turn_completed'; stopReason: SidecarEventPayload<'turn_completed'>['stopReason']; syntheticTimeout?: true }
  | {
      type: 'turn_failed';
      error: string;
      code?: string;
      apiErrorStatus?: number;
      dispatchDisposition?: 'rejected';
    }
  | { type: 'turn_canceled'; error?: string };

export type IdentityBinding = 'bound' | 'already_bound' | 'conflict';

export type CancellationTarget =
  | { kind: 'active'; turn: RuntimeTurn }
  | { kind: 'queued'; turn: RuntimeTurn; differentActiveTurn: RuntimeTurn | undefined }
  | { kind: 'unresolved'; turn: RuntimeTurn }
  /** The turn settled, and the synthetic turn continuing its background work is running. */
  | { kind: 'continued'; root: ContinuedTurn; continuation: RuntimeTurn }
  | { kind: 'mismatch' }
  /** Nothing unsettled, or the turn already settled and nothing continues it. */
  | { kind: 'absent' };

export interface TurnLifecycleHooks {
  onIdentityBound?(turn: RuntimeTurn): void;
  /** The turn is settling and its terminal event is next: last chance to close what it left open. */
  beforeTerminal?(turn: RuntimeTurn, terminal: TurnTerminal): void;
  onSettled?(turn: RuntimeTurn, terminal: TurnTerminal): void;
}

/**
 * The FIFO of unsettled Turns of one session and the rules for their identity and terminal events:
 * identity is bound at most once, checkpoints and terminals always carry the bound provider Turn id,
 * and every Turn ends in exactly one terminal event.
 */
export class TurnLifecycle {
  readonly #emit: EmitEvent;
  readonly #hooks: TurnLifecycleHooks;
  readonly #checkpoints = new CheckpointLog();
  #turns: RuntimeTurn[] = [];
  #settledCount = 0;
  /** Turn ids that already ended: a late cancel of one of them has nothing to cancel. */
  readonly #settledIds = new RecentKeys(1024);
  /** The last root (non-synthetic) turn that settled: background output after it continues its work. */
  #lastRoot: ContinuedTurn | undefined;

  constructor(emit: EmitEvent, hooks: TurnLifecycleHooks = {}) {
    this.#emit = emit;
    this.#hooks = hooks;
  }

  /** How many turns reached a terminal event, including those counted by a restored resume cursor. */
  get settledCount(): number {
    return this.#settledCount;
  }

  set settledCount(count: number) {
    this.#settledCount = count;
  }

  get active(): RuntimeTurn | undefined {
    return this.#turns.find((turn) => turn.active && !turn.settled);
  }

  unsettled(): readonly RuntimeTurn[] {
    return this.#turns.filter((turn) => !turn.settled);
  }

  get idle(): boolean {
    return this.#turns.every((turn) => turn.settled);
  }

  find(turnId: string): RuntimeTurn | undefined {
    return this.#turns.find((turn) => turn.turnId === turnId && !turn.settled);
  }

  enqueue(init: { turnId: string; correlationId: string; turnOrigin?: string; goal?: GoalCommand }): RuntimeTurn {
    const turn: RuntimeTurn = {
      turnId: init.turnId,
      correlationId: init.correlationId,
      synthetic: false,
      turnOrigin: init.turnOrigin,
      goal: init.goal,
      continues: undefined,
      generationId: undefined,
      providerTurnId: undefined,
      phase: 'queued',
      active: false,
      activated: false,
      canceling: false,
      settled: false,
    };
    this.#turns.push(turn);
    return turn;
  }

  /** The turn a root output message belongs to: the active one, else the oldest dispatched one awaiting identity. */
  outputTarget(): RuntimeTurn | undefined {
    return (
      this.active ??
      this.#turns.find(
        (turn) =>
          !turn.settled &&
          !turn.synthetic &&
          !turn.canceling &&
          turn.generationId !== undefined &&
          !turn.providerTurnId,
      )
    );
  }

  /** The unsettled turn whose outbound prompt carried this correlation uuid. */
  awaitingCorrelation(correlationId: string): RuntimeTurn | undefined {
    return this.#turns.find((turn) => !turn.settled && !turn.canceling && turn.correlationId === correlationId);
  }

  /** The unsettled turn whose outbound prompt carried this correlation uuid, also while it is being canceled. */
  withCorrelation(correlationId: string): RuntimeTurn | undefined {
    return this.#turns.find((turn) => !turn.settled && turn.correlationId === correlationId);
  }

  activate(turn: RuntimeTurn): void {
    if (turn.active || turn.settled) return;
    const current = this.active;
    if (current && current !== turn) return;
    turn.active = true;
    turn.activated = true;
    const { goal } = turn;
    if (goal) {
      this.#emit('goal_command_started', {
        turnId: turn.turnId,
        ...(turn.providerTurnId ? { providerTurnId: turn.providerTurnId } : {}),
        operationId: goal.operationId,
        revision: goal.revision,
        repairEpoch: goal.repairEpoch,
        action: goal.action,
      });
    }
    if (turn.turnOrigin) {
      this.#emit('turn_started', { turnId: turn.turnId, turnOrigin: turn.turnOrigin, ...goalProvenance(turn) });
    }
  }

  /** Root output with no turn to own it (for example a background follow-up) gets a sidecar-made turn. */
  openSynthetic(generationId: number | undefined): RuntimeTurn {
    const turn: RuntimeTurn = {
      turnId: `synthetic-${randomUUID()}`,
      correlationId: '',
      synthetic: true,
      turnOrigin: undefined,
      goal: undefined,
      continues:
        generationId !== undefined && this.#lastRoot?.generationId === generationId ? this.#lastRoot : undefined,
      generationId,
      providerTurnId: undefined,
      phase: 'streaming',
      active: false,
      activated: false,
      canceling: false,
      settled: false,
    };
    this.#turns.push(turn);
    if (!this.active) {
      turn.active = true;
      turn.activated = true;
    }
    this.#emit('turn_started', { turnId: turn.turnId, synthetic: true });
    return turn;
  }

  bindIdentity(turn: RuntimeTurn, providerTurnId: string): IdentityBinding {
    if (turn.providerTurnId) return turn.providerTurnId === providerTurnId ? 'already_bound' : 'conflict';
    turn.providerTurnId = providerTurnId;
    turn.phase = 'identity_resolved';
    this.#emit('provider_turn_identity_resolved', {
      turnId: turn.turnId,
      providerTurnId,
      ...(turn.turnOrigin ? { turnOrigin: turn.turnOrigin } : {}),
      ...goalProvenance(turn),
    });
    this.#hooks.onIdentityBound?.(turn);
    return 'bound';
  }

  checkpoint(turn: RuntimeTurn, checkpointId: string): void {
    const providerTurnId = turn.providerTurnId;
    if (!providerTurnId || turn.settled) return;
    if (!this.#checkpoints.record(turn.turnId, providerTurnId, checkpointId)) return;
    this.#emit('provider_turn_checkpoint', {
      turnId: turn.turnId,
      providerTurnId,
      providerCheckpointMessageId: checkpointId,
    });
  }

  /** Emits the turn's one terminal event; false when it had already settled. */
  settle(turn: RuntimeTurn, terminal: TurnTerminal): boolean {
    if (turn.settled) return false;
    turn.settled = true;
    turn.active = false;
    turn.canceling = false;
    turn.phase = 'terminal';
    this.#settledCount += 1;
    this.#settledIds.add(turn.turnId);
    if (!turn.synthetic) {
      this.#lastRoot = { turnId: turn.turnId, providerTurnId: turn.providerTurnId, generationId: turn.generationId };
    }
    this.#turns = this.#turns.filter((candidate) => !candidate.settled);
    this.#hooks.beforeTerminal?.(turn, terminal);
    const providerTurnId = turn.providerTurnId ? { providerTurnId: turn.providerTurnId } : {};
    if (terminal.type === 'turn_canceled' && turn.goal && !turn.activated) {
      // A Goal command that never started is withdrawn, not a canceled turn.
      this.#emit('goal_command_canceled', goalCommandCanceled(turn.turnId, turn.goal));
    } else if (terminal.type === 'turn_completed') {
      this.#emit('turn_completed', {
        turnId: turn.turnId,
        ...providerTurnId,
        stopReason: terminal.stopReason,
        ...(terminal.syntheticTimeout ? { syntheticTimeout: true } : {}),
      });
    } else if (terminal.type === 'turn_failed') {
      const { type: _type, ...details } = terminal;
      this.#emit('turn_failed', { turnId: turn.turnId, ...providerTurnId, ...details });
    } else {
      this.#emit('turn_canceled', {
        turnId: turn.turnId,
        ...providerTurnId,
        ...(terminal.error ? { error: terminal.error } : {}),
      });
    }
    this.#hooks.onSettled?.(turn, terminal);
    return true;
  }

  /** Marks the expected turn as being canceled, so no output activates it while the Query shuts down. */
  prepareExactCancellation(expectedTurnId: string): CancellationTarget {
    const turn = this.find(expectedTurnId);
    if (!turn) return this.#prepareSettled(expectedTurnId);
    if (turn.canceling) return { kind: 'unresolved', turn };
    const active = this.active;
    turn.canceling = true;
    if (turn.active) return { kind: 'active', turn };
    return { kind: 'queued', turn, differentActiveTurn: active };
  }

  /**
   * A cancel of a turn that is not running: when its background work runs on as a synthetic turn, that
   * continuation is what the cancel stops; a turn that simply ended is absent; an id never seen while
   * other turns run names the wrong turn.
   */
  #prepareSettled(expectedTurnId: string): CancellationTarget {
    const continuation = this.#turns.find(
      (candidate) => !candidate.settled && candidate.continues?.turnId === expectedTurnId,
    );
    if (continuation?.continues) {
      if (continuation.canceling) return { kind: 'unresolved', turn: continuation };
      continuation.canceling = true;
      return { kind: 'continued', root: continuation.continues, continuation };
    }
    if (this.#settledIds.has(expectedTurnId) || this.unsettled().length === 0) return { kind: 'absent' };
    return { kind: 'mismatch' };
  }

  /** Ends a prepared cancellation with its terminal event; false when the turn was already settled. */
  commitCancellation(turn: RuntimeTurn, error?: string): boolean {
    return this.settle(turn, { type: 'turn_canceled', ...(error ? { error } : {}) });
  }

  releaseCancellation(turn: RuntimeTurn): void {
    turn.canceling = false;
  }
}

/** The `sourceGoal*` fields that tie a turn's events to the Goal command it carried. */
function goalProvenance(turn: RuntimeTurn): {
  sourceGoalOperationId?: string;
  sourceGoalRevision?: number;
  sourceGoalRepairEpoch?: number;
} {
  const { goal } = turn;
  if (!goal) return {};
  return {
    sourceGoalOperationId: goal.operationId,
    sourceGoalRevision: goal.revision,
    sourceGoalRepairEpoch: goal.repairEpoch,
  };
}
