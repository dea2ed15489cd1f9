import type {
  ChangedFile,
  Checkpoint,
  InteractionAnswer,
  PatchSettingsBody,
  SessionWorktree,
  TurnError,
} from '@outrigger/host-api';
import type { AttachmentRecord, TurnInputBlock } from '../store/records.ts';
import {
  answerInteraction,
  applySettings,
  type SupersedeResolution,
  supersedeInteraction,
} from './interactionProjection.ts';
import type { ProjectionDraft } from './projectionDraft.ts';
import { imageSizes, newRow, userRow } from './rows.ts';
import { markTimedOut } from './toolProjection.ts';
import { emitQueue, endEverything, endTurn, hostInterruption, newTurn, startRows } from './turnLifecycle.ts';
import { messageView } from './views.ts';

/** A prompt as the runtime hands it over: text, extra blocks (images by attachment) and their bytes. */
export interface PromptInput {
  readonly prompt: string;
  readonly input: readonly TurnInputBlock[];
  readonly attachments: readonly AttachmentRecord[];
  readonly clientMessageId: string | null;
}

/**
 * Every durable decision the runtime makes about a session, declared once: the projector projects it, the
 * ledger applies it (commit, then publish), the test ledger records it. Sidecar events are the other input
 * and have their own union in the protocol package.
 */
export type SessionCommand =
  /** A new user turn: running (`turn_started` with its prompt row) or `queued` (`queue`). */
  | { readonly type: 'acceptTurn'; readonly turnId: string; readonly prompt: PromptInput; readonly queued: boolean }
  /** A queued prompt runs (the next one, or the one the user ran now); it is no longer paused. */
  | { readonly type: 'startQueuedTurn'; readonly turnId: string }
  /** The user stopped the running turn: every queued prompt is paused (none starts by itself). */
  | { readonly type: 'pauseQueue' }
  /** The user resumed the queue: no queued prompt is paused. */
  | { readonly type: 'resumeQueue' }
  /** The user replaced the text of a queued prompt (its images, place and client message id stay). */
  | { readonly type: 'editQueuedTurn'; readonly turnId: string; readonly prompt: string }
  /** A prompt steered into the running turn (`guide`): its own `user_message` row. */
  | { readonly type: 'steer'; readonly turnId: string; readonly prompt: PromptInput }
  /** A queued turn removed before it ran: `canceled` (`pre_accept`), `turn_canceled`, its own `done`. */
  | { readonly type: 'cancelQueuedTurn'; readonly turnId: string }
  /** A turn (queued or running) the host ends itself: open calls get results, `result`, `done`. */
  | { readonly type: 'failTurn'; readonly turnId: string; readonly error: TurnError }
  /** The sidecar died: every running turn fails with `error`, pending interactions and background work end. */
  | { readonly type: 'sidecarExited'; readonly error: TurnError }
  /**
   * *A restart ends what ran*: what a previous run left running is `interrupted`, pending work superseded.
   * `stopping`: the host is shutting down cleanly and records it now (else a start found it: a crash or a kill).
   */
  | { readonly type: 'recoverAfterRestart'; readonly stopping?: boolean }
  /** The answer reached the agent; recorded once (the sidecar's own `*_resolved` later changes nothing). */
  | { readonly type: 'interactionAnswered'; readonly requestId: string; readonly answer: InteractionAnswer }
  | {
      readonly type: 'interactionSuperseded';
      readonly requestId: string;
      readonly resolution: SupersedeResolution;
    }
  /** A `provider_active` cancel answer names the provider turn of a turn whose identity event was never applied. */
  | { readonly type: 'bindTurn'; readonly turnId: string; readonly providerTurnId: string }
  /** The user's title wins over the agent's from now on. */
  | { readonly type: 'rename'; readonly title: string }
  | { readonly type: 'changeSettings'; readonly patch: PatchSettingsBody }
  | { readonly type: 'close' }
  /** Archived (hidden from the default list) or restored: only the summary's `archivedAt` changes. */
  | { readonly type: 'archive'; readonly archived: boolean }
  | {
      readonly type: 'toolTimedOut';
      readonly turnId: string;
      readonly toolUseId: string;
      readonly toolName: string;
      readonly elapsedSeconds: number;
    }
  /** A checkpoint of the working directory was taken (or could not be: `error`); a failed one never fails a turn. */
  | {
      readonly type: 'checkpointRecorded';
      readonly turnId: string | null;
      readonly checkpoint: Checkpoint | null;
      readonly filesChanged: number | null;
      readonly error: string | null;
    }
  /** A rewind or a revert changed the working directory. */
  | {
      readonly type: 'filesRewound';
      readonly turnId: string | null;
      readonly target: string;
      readonly safetyCheckpoint: Checkpoint;
      readonly files: readonly ChangedFile[];
    }
  /** The session's worktree was merged, kept or discarded. */
  | { readonly type: 'worktreeChanged'; readonly worktree: SessionWorktree }
  /**
   * The transcript grew outside Outrigger (`sessions/outsideChanges.ts`): an `outside_changes` notice under
   * `turnId` whose text shows the new messages; `mark` (the transcript's last message) is what Outrigger knows
   * of from now on (the resume cursor's `resumeSessionAt`), so the same messages are never shown twice.
   */
  | { readonly type: 'outsideChanges'; readonly turnId: string; readonly text: string; readonly mark: string };

export type SessionCommandType = SessionCommand['type'];
export type { SupersedeResolution };

/** What the store holds that a command's projection needs and the projector does not keep. */
export interface CommandFacts {
  /** `startQueuedTurn`: the stored size of each of the turn's attachments. */
  readonly imageBytes?: ReadonlyMap<string, number>;
}

/** The rows and events of one command, into the draft of its projection. */
export function projectCommand(d: ProjectionDraft, command: SessionCommand, facts: CommandFacts): void {
  switch (command.type) {
    case 'acceptTurn': {
      const { turnId, prompt, queued } = command;
      const turn = newTurn(d, turnId, {
        kind: 'user',
        status: queued ? 'queued' : 'running',
        prompt: prompt.prompt,
        input: prompt.input,
        clientMessageId: prompt.clientMessageId,
        providerSessionId: null,
        startedAt: queued ? null : d.now,
      });
      d.putTurn(turn);
      d.attachments.push(...prompt.attachments);
      if (queued) emitQueue(d);
      else startRows(d, turn, imageSizes(prompt.attachments));
      d.touch();
      return;
    }
    case 'startQueuedTurn': {
      const turn = d.turn(command.turnId);
      if (turn === undefined || turn.status !== 'queued') {
        d.dropped = 'start of a turn that is not queued';
        return;
      }
      const started = { ...turn, status: 'running' as const, paused: false, startedAt: d.now };
      d.putTurn(started);
      startRows(d, started, facts.imageBytes ?? new Map());
      emitQueue(d);
      d.touch();
      return;
    }
    case 'steer': {
      const { turnId, prompt } = command;
      d.attachments.push(...prompt.attachments);
      const row = userRow(d, turnId, prompt.prompt, prompt.input, imageSizes(prompt.attachments), {
        steer: true,
        clientMessageId: prompt.clientMessageId,
      });
      d.emit({ type: 'user_message', data: { session_id: d.sessionId, turnId, message: messageView(row) } });
      d.touch();
      return;
    }
    case 'pauseQueue':
    case 'resumeQueue': {
      const paused = command.type === 'pauseQueue';
      const changed = [...d.allTurns()].filter((turn) => turn.status === 'queued' && turn.paused !== paused);
      if (changed.length === 0) return;
      for (const turn of changed) d.putTurn({ ...turn, paused });
      emitQueue(d);
      return;
    }
    case 'editQueuedTurn': {
      const turn = d.turn(command.turnId);
      if (turn === undefined || turn.status !== 'queued') {
        d.dropped = 'edit of a turn that is not queued';
        return;
      }
      if (turn.prompt === command.prompt) return;
      d.putTurn({ ...turn, prompt: command.prompt });
      emitQueue(d);
      d.touch();
      return;
    }
    case 'cancelQueuedTurn': {
      const turn = d.turn(command.turnId);
      if (turn === undefined || turn.status !== 'queued') return;
      endTurn(d, turn, { status: 'canceled', disposition: 'pre_accept', reason: null });
      return;
    }
    case 'failTurn': {
      const turn = d.turn(command.turnId);
      if (turn !== undefined) endTurn(d, turn, { status: 'failed', error: command.error });
      return;
    }
    case 'sidecarExited':
      endEverything(d, 'sidecar_exited', { status: 'failed', error: command.error });
      return;
    case 'recoverAfterRestart': {
      const stopping = command.stopping === true;
      endEverything(d, stopping ? 'host_stopped' : 'host_restarted', {
        status: 'interrupted',
        error: hostInterruption(stopping),
      });
      return;
    }
    case 'interactionAnswered': {
      const interaction = d.interaction(command.requestId);
      if (interaction?.status === 'pending') answerInteraction(d, interaction, command.answer);
      return;
    }
    case 'interactionSuperseded': {
      const interaction = d.interaction(command.requestId);
      if (interaction?.status === 'pending') supersedeInteraction(d, interaction, command.resolution);
      return;
    }
    case 'bindTurn': {
      const turn = d.turn(command.turnId);
      if (turn === undefined || turn.providerTurnId !== null) return;
      d.putTurn({ ...turn, providerTurnId: command.providerTurnId, providerSessionId: d.session.providerSessionId });
      d.hasTranscript = true;
      return;
    }
    case 'rename': {
      const { title } = command;
      if (d.session.title === title && d.session.titleSource === 'user') return;
      d.patchSession({ title, titleSource: 'user' }, true);
      d.emit({ type: 'title', data: { session_id: d.sessionId, title } });
      return;
    }
    case 'changeSettings':
      applySettings(d, command.patch);
      return;
    case 'close':
      if (!d.session.closed) d.patchSession({ closed: true }, true);
      return;
    case 'archive': {
      const archivedAt = command.archived ? (d.session.archivedAt ?? d.now) : null;
      if (archivedAt !== d.session.archivedAt) d.patchSession({ archivedAt }, true);
      return;
    }
    case 'toolTimedOut': {
      const { turnId, toolUseId, toolName, elapsedSeconds } = command;
      markTimedOut(d, toolUseId);
      d.emit({
        type: 'tool_timeout',
        data: { session_id: d.sessionId, turnId, tool_use_id: toolUseId, toolName, elapsedSeconds },
      });
      return;
    }
    case 'checkpointRecorded': {
      const { turnId, checkpoint, filesChanged, error } = command;
      d.emit({ type: 'checkpoint', data: { session_id: d.sessionId, turnId, checkpoint, filesChanged, error } });
      return;
    }
    case 'filesRewound': {
      const { turnId, target, safetyCheckpoint, files } = command;
      d.emit({
        type: 'files_rewound',
        data: { session_id: d.sessionId, turnId, target, safetyCheckpoint, files: [...files] },
      });
      return;
    }
    case 'outsideChanges': {
      const { turnId, text, mark } = command;
      if (d.turn(turnId) === undefined) {
        d.dropped = 'outside changes under a turn the session does not have';
        return;
      }
      const row = newRow(d, turnId, 'system', [{ type: 'text', text }], 'complete', { noticeKind: 'outside_changes' });
      d.putMessage(row);
      d.emit({ type: 'notice', data: { session_id: d.sessionId, turnId, message: messageView(row) } });
      const cursor = d.session.resumeCursor ?? {
        kind: 'claude-agent-sdk' as const,
        version: 1 as const,
        resume: d.session.providerSessionId,
        turnCount: 0,
      };
      d.patchSession({ resumeCursor: { ...cursor, resumeSessionAt: mark } });
      d.touch();
      return;
    }
    case 'worktreeChanged': {
      d.patchSession({ worktree: command.worktree }, true);
      d.emit({ type: 'worktree', data: { session_id: d.sessionId, worktree: command.worktree } });
      return;
    }
    default:
      assertNever(command);
  }
}

function assertNever(command: never): never {
  throw new Error(`unknown session command ${(command as { type: string }).type}`);
}
