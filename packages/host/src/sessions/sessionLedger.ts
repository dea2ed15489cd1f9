import type {
  CreateTaskBody,
  InteractionAnswer,
  PatchSettingsBody,
  PatchTaskBody,
  Task,
  TurnError,
} from '@outrigger/host-api';
import type { SidecarEvent } from '@outrigger/protocol';
import type { SupersedeResolution } from '../projection/interactionProjection.ts';
import type { AppliedSidecarEvent } from '../projection/projectedSessionLedger.ts';
import type { SessionRecord, TurnRecord } from '../store/records.ts';
import type { TurnDraft } from './turnInput.ts';

export type { AppliedSidecarEvent, SupersedeResolution };

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
  /** A new user turn: running (`turn_started`) or `queued` (`queue`). */
  acceptTurn(turnId: string, draft: TurnDraft, queued: boolean): Promise<void>;
  startQueuedTurn(turnId: string): Promise<void>;
  /** A prompt steered into the running turn: its `user_message` row. */
  steer(turnId: string, draft: TurnDraft): Promise<void>;
  /** A queued turn removed: `canceled` (`pre_accept`), `turn_canceled`, its own `done`. */
  cancelQueuedTurn(turnId: string): Promise<void>;
  /** A turn (queued or running) ended by the host: open tools get synthesized results, `result`, `done`. */
  failTurn(turnId: string, error: TurnError): Promise<void>;
  /** Every running turn failed with `error`; pending interactions superseded (`sidecar_exited`). */
  sidecarExited(error: TurnError): Promise<void>;
  /** Invariant 8: running turns `interrupted` (`host_restarted`), pending interactions superseded. */
  recoverAfterRestart(): Promise<void>;
  /** Recorded once; the sidecar's own `*_resolved` for it later changes nothing. */
  interactionAnswered(requestId: string, answer: InteractionAnswer): Promise<void>;
  interactionSuperseded(requestId: string, resolution: SupersedeResolution): Promise<void>;
  /** A `provider_active` cancel answer for a turn whose identity event was never applied. */
  bindTurn(turnId: string, providerTurnId: string): Promise<void>;
  rename(title: string): Promise<void>;
  changeSettings(patch: PatchSettingsBody): Promise<void>;
  close(): Promise<void>;
  toolTimedOut(turnId: string, toolUseId: string, toolName: string, elapsedSeconds: number): Promise<void>;
  /** User tasks (`source: 'user'`); the sync of the agent's plan never touches them. */
  createUserTask(body: Omit<CreateTaskBody, 'session_id'>): Promise<Task>;
  updateUserTask(taskId: string, patch: PatchTaskBody): Promise<Task>;
  deleteUserTask(taskId: string): Promise<void>;
}
