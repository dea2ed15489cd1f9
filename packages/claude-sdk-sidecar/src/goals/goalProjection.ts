import type { EmitEvent, Goal, GoalAction, SidecarEventPayload } from '@outrigger/protocol';
import { RecentKeys } from '../shared/recentKeys.ts';
import { asRecord, type JsonRecord, nonEmptyString } from '../shared/sdkValues.ts';

/** The Turn a Goal observation is reported on: the session's last Turn, with its Goal command if it carried one. */
export interface GoalTurn {
  readonly turnId: string;
  readonly providerTurnId?: string;
  readonly action?: GoalAction;
}

type GoalObserved = SidecarEventPayload<'goal_observed'>;
type GoalSource = GoalObserved['source'];

/** Row uuids remembered, so a row seen both in the SDK stream and in the transcript tail is reported once. */
const SEEN_ROWS_LIMIT = 256;

/**
 * Claude's `/goal` state as `goal_observed` events. Two sources report it: the SDK's `active_goal` messages
 * (the live goal, or null once it ended) and `goal_status` attachment rows (the Stop-hook verdicts: met, not
 * met, impossible), which reach the sidecar through the transcript tail. A goal still active when the
 * provider goes idle got no verdict in that run and is reported `blocked`.
 */
export class GoalProjection {
  readonly #emit: EmitEvent;
  readonly #seenRows = new RecentKeys(SEEN_ROWS_LIMIT);
  /** The goal as last reported; undefined once it ended. */
  #current: { goal: Goal; source: GoalSource } | undefined;

  constructor(emit: EmitEvent) {
    this.#emit = emit;
  }

  /** An SDK message or transcript row; anything but `active_goal` and `goal_status` attachments is ignored. */
  observe(entry: unknown, turn: GoalTurn | undefined): void {
    const record = asRecord(entry);
    if (record?.type === 'active_goal') {
      this.#activeGoal(record, turn);
      return;
    }
    const attachment = asRecord(record?.attachment);
    if (record?.type !== 'attachment' || attachment?.type !== 'goal_status') return;
    const uuid = nonEmptyString(record.uuid);
    if (uuid !== undefined && !this.#seenRows.add(uuid)) return;
    this.#goalStatus(attachment, turn);
  }

  /** The provider went idle: an active goal that got no verdict cannot progress on its own. */
  idle(turn: GoalTurn | undefined): void {
    const current = this.#current;
    if (current?.goal.status !== 'active') return;
    const blocked: Goal = { ...current.goal, status: 'blocked' };
    this.#current = { goal: blocked, source: current.source };
    this.#report(turn, current.source, 'thread_goal_update', blocked);
  }

  #activeGoal(message: JsonRecord, turn: GoalTurn | undefined): void {
    const value = asRecord(message.value);
    if (value === undefined) {
      // The goal ended; only the Turn that asked can tell a clear from a completion.
      const ended = this.#current?.goal;
      this.#current = undefined;
      if (turn?.action === 'clear') this.#report(turn, 'active_goal', 'thread_goal_cleared', undefined);
      else this.#report(turn, 'active_goal', 'thread_goal_completed', ended && { ...ended, status: 'complete' });
      return;
    }
    const goal: Goal = {
      objective: nonEmptyString(value.condition) ?? this.#current?.goal.objective ?? '',
      status: 'active',
    };
    if (typeof value.iterations === 'number') goal.iterations = value.iterations;
    const reason = nonEmptyString(value.last_reason) ?? nonEmptyString(value.lastReason);
    if (reason !== undefined) goal.reason = reason;
    this.#current = { goal, source: 'active_goal' };
    this.#report(turn, 'active_goal', 'thread_goal_update', goal);
  }

  #goalStatus(row: JsonRecord, turn: GoalTurn | undefined): void {
    const failed = row.failed === true;
    const met = row.met === true;
    const goal: Goal = {
      objective: nonEmptyString(row.condition) ?? this.#current?.goal.objective ?? '',
      status: met ? 'complete' : failed ? 'blocked' : 'active',
    };
    if (typeof row.iterations === 'number') goal.iterations = row.iterations;
    const reason = nonEmptyString(row.reason);
    if (reason !== undefined) goal.reason = reason;
    if (row.tokens !== undefined) goal.tokens = row.tokens;
    if (row.sentinel !== undefined) goal.sentinel = row.sentinel;
    // An impossible goal is over as surely as a met one: Claude Code removed it.
    const ended = met || failed;
    this.#current = ended ? undefined : { goal, source: 'goal_status' };
    this.#report(turn, 'goal_status', ended ? 'thread_goal_completed' : 'thread_goal_update', goal);
  }

  #report(
    turn: GoalTurn | undefined,
    source: GoalSource,
    updateType: GoalObserved['updateType'],
    goal: Goal | undefined,
  ): void {
    if (turn === undefined) return;
    const payload: GoalObserved = { turnId: turn.turnId, source, updateType };
    if (turn.providerTurnId !== undefined) payload.providerTurnId = turn.providerTurnId;
    if (turn.action !== undefined) payload.action = turn.action;
    if (goal !== undefined) payload.goal = goal;
    this.#emit('goal_observed', payload);
  }
}
