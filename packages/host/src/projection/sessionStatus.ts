import {
  type BackgroundTask,
  type InteractionStatus,
  type SessionStatus,
  type TurnError,
  terminalTurnStatuses,
} from '@outrigger/host-api';
import type { TurnRecord } from '../store/records.ts';

const terminal: ReadonlySet<string> = new Set(terminalTurnStatuses);

/** The turn has ended (completed, failed, canceled or interrupted): its `done` was published. */
export const isTerminalTurn = (turn: Pick<TurnRecord, 'status'>): boolean => terminal.has(turn.status);

export type TurnRecordLike = Pick<TurnRecord, 'id' | 'kind' | 'status' | 'ordinal' | 'startedAt' | 'error' | 'paused'>;

/** What the session's status is computed from: committed state only (*status from committed state*). */
export interface StatusInputs {
  readonly turns: Iterable<TurnRecordLike>;
  readonly interactions: Iterable<{ readonly status: InteractionStatus }>;
  readonly backgroundTasks: readonly BackgroundTask[];
}

export interface ComputedStatus {
  readonly status: SessionStatus;
  readonly needsInputCount: number;
  readonly runningTurnId: string | null;
  /** When the running turn (`runningTurnId`) started; null while none runs. */
  readonly runningTurnStartedAt: number | null;
  /** Some queued prompt is paused: nothing starts by itself (the status does not say `running` for it). */
  readonly queuePaused: boolean;
  readonly lastError: TurnError | null;
}

/**
 * *Status from committed state*: `needs_input` while any interaction is pending; else `running` while a turn or
 * background work is live; `failed` when the last turn that ran failed and none has run since; else
 * `idle`. `runningTurnId` is the running user turn, else a running synthetic one. "Running" is never
 * remembered, only derived, so it cannot stick.
 */
export function computeSessionStatus(inputs: StatusInputs): ComputedStatus {
  let needsInputCount = 0;
  for (const interaction of inputs.interactions) if (interaction.status === 'pending') needsInputCount += 1;
  let runningUser: TurnRecordLike | undefined;
  let runningSynthetic: TurnRecordLike | undefined;
  let lastRan: TurnRecordLike | undefined;
  let queuePaused = false;
  for (const turn of inputs.turns) {
    if (turn.status === 'queued' && turn.paused) queuePaused = true;
    if (turn.status === 'running') {
      if (turn.kind === 'user') runningUser ??= turn;
      else runningSynthetic ??= turn;
    }
    if (turn.startedAt !== null && (lastRan === undefined || turn.ordinal > lastRan.ordinal)) lastRan = turn;
  }
  const runningTurn = runningUser ?? runningSynthetic;
  const runningTurnId = runningTurn?.id ?? null;
  const runningTurnStartedAt = runningTurn?.startedAt ?? null;
  const lastError = lastRan?.status === 'failed' ? lastRan.error : null;
  const status: SessionStatus =
    needsInputCount > 0
      ? 'needs_input'
      : runningTurnId !== null || inputs.backgroundTasks.length > 0
        ? 'running'
        : lastRan?.status === 'failed'
          ? 'failed'
          : 'idle';
  return { status, needsInputCount, runningTurnId, runningTurnStartedAt, queuePaused, lastError };
}
