import type { CreateTaskBody, PatchTaskBody, Task } from '@outrigger/host-api';
import type { SidecarEvent } from '@outrigger/protocol';
import type { AppliedSidecarEvent } from '../projection/projectedSessionLedger.ts';
import type { SessionCommand, SupersedeResolution } from '../projection/sessionCommand.ts';
import type { SessionRecord, TurnRecord } from '../store/records.ts';

export type { AppliedSidecarEvent, SessionCommand, SupersedeResolution };

/**
 * One session's durable state as the runtime drives it (`ProjectedSessionLedger` in the host, a
 * `FakeLedger` in the runtime's tests): every method builds its rows and events with the session's
 * projector, commits them as one write unit and publishes what was committed (persist, then publish).
 * A failed commit throws (`StoreError`) and leaves the state as the store has it. The reads are the
 * projector's in-memory view of committed state. One writer per session: callers run these on the
 * session's serial queue.
 */
export interface SessionLedger {
  readonly sessionId: string;
  readonly session: SessionRecord;
  /** A turn the session still works on or just ended; older ones come from the store. */
  turn(turnId: string): TurnRecord | undefined;
  /** The user turn running now. */
  runningUserTurn(): TurnRecord | undefined;
  /** Every running turn, user and synthetic. */
  liveTurns(): readonly TurnRecord[];
  /** Prompts waiting behind the running turn, in order. */
  queuedTurns(): readonly TurnRecord[];
  /** Some turn was accepted by Claude, so the provider session has a transcript to resume. */
  hasTranscript(): boolean;

  applySidecarEvent(event: SidecarEvent): Promise<AppliedSidecarEvent>;
  /**
   * Events in order, as if applied one by one, committed as one write unit: the store has all of them or
   * none (a refusal throws and leaves the state as the store has it). One result per event.
   */
  applySidecarEvents(events: readonly SidecarEvent[]): Promise<AppliedSidecarEvent[]>;
  /** One of the runtime's decisions: projected, committed as one write unit, then published. */
  apply(command: SessionCommand): Promise<void>;
  /** User tasks (`source: 'user'`); the sync of the agent's plan never touches them. */
  createUserTask(body: Omit<CreateTaskBody, 'session_id'>): Promise<Task>;
  updateUserTask(taskId: string, patch: PatchTaskBody): Promise<Task>;
  deleteUserTask(taskId: string): Promise<void>;
}
