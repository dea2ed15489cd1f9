import type { CancelPayload, CancelResult } from '@outrigger/protocol';
import { CancelDiagnostics, type QueryShutdownObserver } from '../diagnostics/cancelDiagnostics.ts';
import { SidecarError } from '../diagnostics/diagnosticLine.ts';
import type { RequestContext } from '../shared/sidecarSession.ts';
import type { GenerationLifecycle } from './generationLifecycle.ts';
import type { QueryGeneration } from './queryGeneration.ts';
import type { RuntimeTurn, TurnLifecycle } from './turnLifecycle.ts';

/** What the exact-cancel procedure needs from the session it cancels in. */
export interface ExactCancellationHost {
  readonly agentSessionId: string;
  readonly providerSessionId: string;
  readonly closed: boolean;
  readonly turns: TurnLifecycle;
  readonly generations: GenerationLifecycle;
  /** Withdraws a Goal command still waiting for its batch; false when none waits for this turn. */
  withdrawQueuedGoal(turnId: string): boolean;
  /**
   * The live generation is about to be interrupted for a cancel: nothing of the session may keep waiting
   * on it (continuations, identity, interactions, the watchdog), and the next Query drops its tail.
   */
  fenceCanceledGeneration(): void;
}

interface ShutdownBudget {
  interruptTimeoutMs: number;
  drainTimeoutMs: number;
  observe: QueryShutdownObserver;
}

/**
 * `cancel` of one exact turn (reference §3.4): the answer names what was canceled and how far it had
 * got, every phase is written as a `CLAUDE_CODE_CANCEL_DIAGNOSTIC` line, and terminals are published
 * only after the Query's authoritative shutdown.
 */
export async function cancelExactTurn(
  host: ExactCancellationHost,
  payload: CancelPayload,
  context: RequestContext,
): Promise<CancelResult> {
  const expected = payload.turnId || host.turns.active?.turnId || '';
  const diagnostics = new CancelDiagnostics({
    requestId: context.requestId ?? '',
    agentSessionId: host.agentSessionId,
    providerSessionId: host.providerSessionId,
    turnId: payload.turnId,
  });
  const budgets = { interruptTimeoutMs: payload.interruptTimeoutMs, drainTimeoutMs: payload.drainTimeoutMs };
  diagnostics.cancelReceived(budgets);
  try {
    const result = await cancelFenced(host, expected, { ...budgets, observe: diagnostics.observeShutdown });
    diagnostics.cancelSucceeded(result);
    return result;
  } catch (error) {
    diagnostics.cancelFailed(error, errorStage(error));
    throw error;
  }
}

/** Fences at once, publishes terminals only after the Query's authoritative shutdown. */
async function cancelFenced(host: ExactCancellationHost, expected: string, shutdown: ShutdownBudget) {
  const { turns, generations } = host;
  // `queryRetired` tells the host whether this cancel stopped the session's Claude Code (what it ran may
  // need reaping) or left it serving the session.
  const answer =
    (queryRetired: boolean) =>
    (
      canceled: boolean,
      disposition: CancelResult['disposition'],
      providerTurnId = '',
      dispatchPhase: CancelResult['dispatchPhase'] = 'unknown',
    ): CancelResult => ({ canceled, disposition, turnId: expected, providerTurnId, dispatchPhase, queryRetired });
  const outcome = answer(false);
  const retired = answer(true);
  if (host.closed || !expected) return outcome(false, 'absent');
  // A Goal command still waiting for its batch never reached Claude Code: it is withdrawn locally.
  if (host.withdrawQueuedGoal(expected)) return outcome(true, 'pre_accept', '', 'pending_goal');
  const target = turns.prepareExactCancellation(expected);
  if (target.kind === 'absent' || target.kind === 'mismatch') return outcome(false, target.kind);
  if (target.kind === 'unresolved') {
    throw new SidecarError(`Claude SDK exact cancellation remains unresolved for turn ${expected}`);
  }
  const generation = generations.current;
  if (target.kind === 'continued') {
    // The turn itself settled; what it still owns is the synthetic turn its background work runs on.
    const { root, continuation } = target;
    if (generation === undefined || continuation.generationId !== generation.id) {
      turns.releaseCancellation(continuation);
      return outcome(false, 'absent');
    }
    await retireGeneration(host, generation, shutdown);
    const providerTurnId = root.providerTurnId ?? '';
    return retired(true, providerTurnId ? 'provider_active' : 'pre_accept', providerTurnId, 'terminal');
  }
  const turn = target.turn;
  const phase = turn.phase;
  const providerTurnId = turn.providerTurnId ?? '';
  const owned = generation !== undefined && turn.generationId === generation.id;
  if (target.kind === 'queued' && target.differentActiveTurn && phase !== 'queued' && !owned) {
    turns.releaseCancellation(turn);
    return outcome(false, 'mismatch', '', phase);
  }
  if (phase === 'queued') {
    // Never handed to Claude Code: nothing to stop, the Turn ends here.
    turns.commitCancellation(turn);
    return outcome(true, 'pre_accept', '', phase);
  }
  if (!owned) {
    // Its Query is gone. Evidence of acceptance must not be reported as an ordinary absence.
    if (providerTurnId) {
      turns.releaseCancellation(turn);
      return outcome(false, 'provider_state_lost', providerTurnId, phase);
    }
    // It ended before Claude Code accepted it: one terminal, and an answer that says so.
    turns.commitCancellation(turn);
    return outcome(true, 'pre_accept', '', phase);
  }
  if (target.kind === 'queued' && target.differentActiveTurn && !providerTurnId) {
    // Claude Code runs this prompt only after the running turn (a user's, or a background follow-up's): it
    // still waits in Claude Code's queue and is withdrawn, so the running turn goes on untouched.
    if (await withdrawQueuedPrompt(host, generation, turn, shutdown)) return outcome(true, 'pre_accept', '', phase);
  }
  await retireGeneration(host, generation, shutdown);
  return retired(true, providerTurnId ? 'provider_active' : 'pre_accept', providerTurnId, phase);
}

/**
 * Withdraws the prompt of a turn queued behind another from Claude Code's queue and ends the turn; false
 * when Claude Code did not drop it (it started meanwhile, refused, or did not answer within the interrupt
 * budget): the caller then retires the generation as for any dispatched turn.
 */
async function withdrawQueuedPrompt(
  host: ExactCancellationHost,
  generation: QueryGeneration,
  turn: RuntimeTurn,
  shutdown: ShutdownBudget,
): Promise<boolean> {
  const withdrawn = await generation.withdrawPrompt(turn.correlationId, {
    timeoutMs: shutdown.interruptTimeoutMs,
    observe: shutdown.observe,
  });
  // Its echo arrived while Claude Code was asked: it started after all, whatever the answer says.
  if (!withdrawn || turn.activated || !host.generations.isCurrent(generation)) return false;
  if (!host.turns.commitCancellation(turn))
    throw new SidecarError(`Claude SDK lost canceled Query turn ${turn.turnId}`);
  return true;
}

/**
 * One interrupt retires the whole generation, so every Turn it holds ends canceled, each with one
 * terminal published after the Query's shutdown.
 */
async function retireGeneration(host: ExactCancellationHost, generation: QueryGeneration, shutdown: ShutdownBudget) {
  const { turns, generations } = host;
  const canceled = turns.unsettled().filter((candidate) => candidate.generationId === generation.id);
  for (const candidate of canceled) candidate.canceling = true;
  host.fenceCanceledGeneration();
  generations.release(generation);
  await generation.shutdown({ interrupt: true, ...shutdown });
  const lost = canceled.filter((candidate) => !turns.commitCancellation(candidate));
  if (lost[0]) throw new SidecarError(`Claude SDK lost canceled Query turn ${lost[0].turnId}`);
}

function errorStage(error: unknown): string | undefined {
  const stage = typeof error === 'object' && error !== null ? (error as { stage?: unknown }).stage : undefined;
  return typeof stage === 'string' ? stage : undefined;
}
