import type { TurnError, TurnOutcome } from '@outrigger/host-api';
import type { CancelDisposition } from '@outrigger/protocol';
import type { TurnRecord } from '../store/records.ts';
import { supersedeInteraction } from './interactionProjection.ts';
import type { ProjectionDraft } from './projectionDraft.ts';
import { interruptText, toolBlockOf, userRow } from './rows.ts';
import { isTerminalTurn } from './sessionStatus.ts';
import { clearBackground, synthesize } from './toolProjection.ts';
import { messageView, queuedPrompt } from './views.ts';

/*
 * Turns: the *identity barrier*, bindings and checkpoints, synthetic turns, how a turn
 * starts, and how it ends exactly once (*one done per turn*).
 */

export type TurnEnding =
  | { readonly status: 'completed'; readonly stopReason: string }
  | { readonly status: 'failed'; readonly error: TurnError }
  | { readonly status: 'interrupted'; readonly error: TurnError }
  | { readonly status: 'canceled'; readonly reason?: string | null; readonly disposition?: CancelDisposition };

/**
 * The turn an output event belongs to, when its output may be stored. The *identity barrier*: a user turn's
 * output before its identity is committed fails the turn (fail-closed) and nothing of it is kept.
 * Output of an ended turn (subagent work under a done root turn) is kept under it; the turn stays ended.
 */
export function outputTurn(d: ProjectionDraft, turnId: string): TurnRecord | undefined {
  const turn = d.turn(turnId);
  if (turn === undefined) {
    d.dropped = 'output of an unknown turn';
    return undefined;
  }
  if (turn.kind === 'user' && turn.providerTurnId === null) {
    if (!isTerminalTurn(turn)) violate(d, turn, 'output arrived before the turn was accepted');
    else d.dropped = 'output of a turn that was never accepted';
    return undefined;
  }
  return turn;
}

function violate(d: ProjectionDraft, turn: TurnRecord, why: string): void {
  d.identityViolationTurnId = turn.id;
  endTurn(d, turn, {
    status: 'failed',
    error: { message: `identity violation: ${why}`, code: 'identity_violation', apiErrorStatus: null },
  });
}

/**
 * *One done per turn*: a turn ends once. Its streaming text is marked interrupted, calls it left open get a
 * synthesized error result (except, when it completed, the calls of background work that goes on),
 * its pending interactions are superseded, then `result` (or `turn_canceled`) and `done`, last.
 */
export function endTurn(d: ProjectionDraft, turn: TurnRecord, ending: TurnEnding): void {
  if (isTerminalTurn(turn)) return;
  const wasQueued = turn.status === 'queued';
  const reason =
    ending.status === 'canceled'
      ? 'the turn was canceled'
      : ending.status === 'interrupted'
        ? hostEndReason(ending.error)
        : ending.status === 'failed'
          ? `the turn failed (${ending.error.message})`
          : 'the turn ended';
  for (const row of d.messagesOfTurn(turn.id)) {
    const tool = toolBlockOf(row);
    if (tool !== undefined) {
      if (tool.status !== 'running') continue;
      if (ending.status === 'completed' && tool.parentToolUseId !== null) continue; // subagent work goes on
      synthesize(d, row, reason, ending.status === 'canceled' ? 'canceled' : 'stopped');
      continue;
    }
    if (row.status === 'streaming' && row.role === 'assistant') interruptText(d, row);
  }
  for (const interaction of [...d.allInteractions()]) {
    if (interaction.turnId === turn.id && interaction.status === 'pending')
      supersedeInteraction(d, interaction, 'turn_ended');
  }
  const error = ending.status === 'failed' || ending.status === 'interrupted' ? ending.error : null;
  const ended: TurnRecord = {
    ...turn,
    status: ending.status,
    stopReason: ending.status === 'completed' ? ending.stopReason : turn.stopReason,
    error,
    cancelDisposition:
      ending.status === 'canceled' ? (ending.disposition ?? turn.cancelDisposition) : turn.cancelDisposition,
    endedAt: d.now,
  };
  d.putTurn(ended);
  const base = { session_id: d.sessionId, turnId: turn.id };
  if (ending.status === 'completed' || ending.status === 'failed') {
    d.emit({
      type: 'result',
      data: {
        ...base,
        outcome: ending.status,
        stopReason: ended.stopReason,
        error,
        usage: ended.usage,
        durationMs: ended.startedAt === null ? null : d.now - ended.startedAt,
      },
    });
  } else if (ending.status === 'canceled') {
    d.emit({
      type: 'turn_canceled',
      data: { ...base, disposition: ended.cancelDisposition, reason: ending.reason ?? null },
    });
  }
  d.emit({ type: 'done', data: { ...base, outcome: ending.status as TurnOutcome, error } });
  d.endedTurnIds.push(turn.id);
  if (wasQueued) emitQueue(d);
  d.touch();
}

/**
 * Why a turn the host's end cut off is `interrupted`, in the words the user reads ("Interrupted: …"). A clean
 * shutdown (Ctrl-C, SIGTERM) records it while the host can still write: the host was stopped, and it says so
 * before any restart. A turn the next start finds still running was cut off by an end that recorded nothing:
 * the host crashed or was killed.
 */
export function hostInterruption(stopping: boolean): TurnError {
  return stopping
    ? { message: 'the host was stopped while the turn ran', code: 'host_stopped', apiErrorStatus: null }
    : { message: 'the host crashed or was killed while the turn ran', code: 'host_restarted', apiErrorStatus: null };
}

/** What an interrupted turn's open tool calls and background work read as their end, from its error. */
function hostEndReason(error: TurnError): string {
  return error.code === 'host_stopped' ? 'the host was stopped' : 'the host crashed or was killed';
}

/** The sidecar is gone or the host ended: every live turn ends, pending interactions and background work too. */
export function endEverything(
  d: ProjectionDraft,
  resolution: 'sidecar_exited' | 'host_stopped' | 'host_restarted',
  ending: TurnEnding,
): void {
  for (const interaction of [...d.allInteractions()]) {
    if (interaction.status === 'pending') supersedeInteraction(d, interaction, resolution);
  }
  for (const turn of [...d.allTurns()]) if (turn.status === 'running') endTurn(d, turn, ending);
  // The host's end interrupts (`recoverAfterRestart`); the sidecar's exit fails.
  const reason = ending.status === 'interrupted' ? hostEndReason(ending.error) : 'the sidecar exited';
  clearBackground(d, reason, 'stopped');
  for (const row of [...d.allMessages()]) {
    if (row.status === 'streaming' && row.role === 'assistant' && toolBlockOf(row) === undefined) {
      interruptText(d, row);
    }
  }
}

export function sidecarTerminal(d: ProjectionDraft, turnId: string, ending: TurnEnding): void {
  const turn = d.turn(turnId);
  if (turn === undefined) {
    d.dropped = 'the end of an unknown turn';
    return;
  }
  endTurn(d, turn, ending);
}

export function identity(d: ProjectionDraft, turnId: string, providerTurnId: string): void {
  const turn = d.turn(turnId);
  if (turn === undefined) {
    d.dropped = 'identity of an unknown turn';
    return;
  }
  if (turn.providerTurnId === providerTurnId) return;
  if (turn.providerTurnId !== null) {
    if (!isTerminalTurn(turn)) violate(d, turn, 'the turn was bound to a second provider turn');
    else d.dropped = 'a second identity for an ended turn';
    return;
  }
  if (isTerminalTurn(turn)) {
    // Bound after it ended (a canceled turn's late echo): keep the binding, the turn stays ended.
    d.putTurn({ ...turn, providerTurnId, providerSessionId: d.session.providerSessionId });
    d.hasTranscript = true;
    return;
  }
  // The durable barrier: this unit commits the binding before any later event of the turn is applied.
  d.putTurn({ ...turn, providerTurnId, providerSessionId: d.session.providerSessionId });
  d.hasTranscript = true;
}

export function checkpoint(d: ProjectionDraft, turnId: string, checkpointMessageId: string): void {
  const turn = d.turn(turnId);
  if (turn === undefined || turn.checkpointMessageId === checkpointMessageId) return;
  d.putTurn({ ...turn, checkpointMessageId });
}

/** A turn as it is created: the next ordinal, not yet bound to Claude's turn, nothing ended. */
export function newTurn(
  d: ProjectionDraft,
  id: string,
  created: Pick<
    TurnRecord,
    'kind' | 'status' | 'prompt' | 'input' | 'clientMessageId' | 'providerSessionId' | 'startedAt'
  >,
): TurnRecord {
  return {
    id,
    sessionId: d.sessionId,
    ordinal: d.ordinal(),
    kind: created.kind,
    status: created.status,
    prompt: created.prompt,
    input: created.input,
    clientMessageId: created.clientMessageId,
    paused: false,
    providerTurnId: null,
    providerSessionId: created.providerSessionId,
    checkpointMessageId: null,
    stopReason: null,
    error: null,
    cancelDisposition: null,
    usage: null,
    createdAt: d.now,
    startedAt: created.startedAt,
    endedAt: null,
  };
}

export function syntheticTurnStarted(d: ProjectionDraft, turnId: string): void {
  if (d.turn(turnId) !== undefined) return;
  d.putTurn(
    newTurn(d, turnId, {
      kind: 'synthetic',
      status: 'running',
      prompt: null,
      input: [],
      clientMessageId: null,
      providerSessionId: d.session.providerSessionId,
      startedAt: d.now,
    }),
  );
  d.emit({ type: 'turn_started', data: { session_id: d.sessionId, turnId, kind: 'synthetic', message: null } });
  d.touch();
}

export function startRows(d: ProjectionDraft, turn: TurnRecord, imageBytes: ReadonlyMap<string, number>): void {
  const row = userRow(d, turn.id, turn.prompt ?? '', turn.input, imageBytes, {
    clientMessageId: turn.clientMessageId,
  });
  d.emit({
    type: 'turn_started',
    data: { session_id: d.sessionId, turnId: turn.id, kind: 'user', message: messageView(row) },
  });
}

export function emitQueue(d: ProjectionDraft): void {
  const queued = [...d.allTurns()].filter((turn) => turn.status === 'queued').sort((a, b) => a.ordinal - b.ordinal);
  d.emit({ type: 'queue', data: { session_id: d.sessionId, queuedPrompts: queued.map(queuedPrompt) } });
}
