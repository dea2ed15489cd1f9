import type { EmitEvent, GoalCommand, SidecarEventPayload } from '@outrigger/protocol';

/** An `exec` that carries a Goal command, held back until the batch it arrived in is complete. */
export interface GoalExec {
  readonly turnId: string;
  readonly command: GoalCommand;
}

/** The terminal event of a Goal command that was canceled before it started. */
export function goalCommandCanceled(
  turnId: string,
  command: GoalCommand,
): SidecarEventPayload<'goal_command_canceled'> {
  return {
    turnId,
    operationId: command.operationId,
    revision: command.revision,
    repairEpoch: command.repairEpoch,
    action: command.action,
    reason: 'cancel_requested',
  };
}

/**
 * Goal command `exec`s are deferred to the next macrotask and dispatched as one batch, so a `clear` that
 * arrives right behind a `set` can drop it before it ever reaches Claude Code: each queued `set` with a
 * lower revision ends with `goal_command_superseded`. Until the batch is dispatched, a command can be
 * canceled locally (`pending_goal`).
 */
export class GoalExecQueue<T extends GoalExec> {
  readonly #emit: EmitEvent;
  readonly #dispatch: (exec: T) => void;
  #queued: T[] = [];
  #drainScheduled = false;

  constructor(options: { emit: EmitEvent; dispatch: (exec: T) => void }) {
    this.#emit = options.emit;
    this.#dispatch = options.dispatch;
  }

  enqueue(exec: T): void {
    if (exec.command.action === 'clear') this.#supersedeSetsBelow(exec.command.revision);
    this.#queued.push(exec);
    if (this.#drainScheduled) return;
    this.#drainScheduled = true;
    setTimeout(() => this.#drain(), 0);
  }

  has(turnId: string): boolean {
    return this.#queued.some((exec) => exec.turnId === turnId);
  }

  /** Removes the queued command of this Turn and ends it with `goal_command_canceled`; false when none is queued. */
  cancelExact(turnId: string): boolean {
    const index = this.#queued.findIndex((exec) => exec.turnId === turnId);
    const exec = this.#queued[index];
    if (exec === undefined) return false;
    this.#queued.splice(index, 1);
    this.#emit('goal_command_canceled', goalCommandCanceled(exec.turnId, exec.command));
    return true;
  }

  /** Hands back every undispatched command (the session is closing); none of them will be dispatched. */
  takeAll(): T[] {
    return this.#queued.splice(0);
  }

  #supersedeSetsBelow(revision: number): void {
    const kept: T[] = [];
    for (const exec of this.#queued) {
      const { command } = exec;
      if (command.action !== 'set' || command.revision >= revision) {
        kept.push(exec);
        continue;
      }
      this.#emit('goal_command_superseded', {
        turnId: exec.turnId,
        operationId: command.operationId,
        revision: command.revision,
        action: command.action,
        supersededByRevision: revision,
      });
    }
    this.#queued = kept;
  }

  #drain(): void {
    this.#drainScheduled = false;
    for (const exec of this.#queued.splice(0)) this.#dispatch(exec);
  }
}
