import type { TurnRecord } from '../store/records.ts';

/*
 * The session's prompt queue as decisions, its effects left to `HostSession` (as `interactionAnswer.ts`).
 *
 * A prompt sent while a user turn runs waits in the queue (ordinal order) and starts once that turn ends.
 * The user's Stop of the running turn pauses every prompt then queued (*Stop must stop*): a paused prompt
 * never starts by itself, across restarts too (the flag is stored with the turn). It starts when the user
 * runs it now, or resumes the queue; it can be edited or removed meanwhile. A prompt sent while the queue is
 * paused is not paused: it runs at once when no turn runs (the user's newest word goes first), or waits
 * behind the running turn ahead of the paused ones. So the paused prompts wait for an explicit decision.
 */

/** The prompt that starts next by itself once no user turn runs: the first queued one not paused. */
export function nextQueued(queued: readonly TurnRecord[]): TurnRecord | undefined {
  return queued.find((turn) => !turn.paused);
}

/** A new prompt waits when a user turn runs, or when a prompt that starts by itself is already waiting. */
export function mustWait(running: TurnRecord | undefined, queued: readonly TurnRecord[]): boolean {
  return running !== undefined || nextQueued(queued) !== undefined;
}

/** The user's cancel of `turn` pauses the queue: the turn runs and prompts wait that would start after it. */
export function pausesOnCancel(turn: TurnRecord, queued: readonly TurnRecord[]): boolean {
  return turn.status === 'running' && nextQueued(queued) !== undefined;
}

export type RunDecision =
  | { readonly kind: 'start' }
  /** It runs already (the retry of a Run now that started it): nothing starts twice. */
  | { readonly kind: 'running' }
  | { readonly kind: 'missing' }
  | { readonly kind: 'conflict'; readonly message: string };

/** Run now: a queued prompt (paused or not) starts while no user turn runs. */
export function decideRun(turn: TurnRecord | undefined, running: TurnRecord | undefined): RunDecision {
  if (turn === undefined || turn.kind !== 'user') return { kind: 'missing' };
  if (turn.status === 'running') return { kind: 'running' };
  if (turn.status !== 'queued') return { kind: 'conflict', message: `the prompt is no longer queued (${turn.status})` };
  if (running !== undefined) {
    return {
      kind: 'conflict',
      message: 'a turn is running: stop it first, or resume the queue to run this prompt after it',
    };
  }
  return { kind: 'start' };
}

export type EditDecision =
  | { readonly kind: 'edit' }
  | { readonly kind: 'missing' }
  | { readonly kind: 'conflict'; readonly message: string }
  | { readonly kind: 'invalid'; readonly message: string };

/** Edit: only a prompt that has not started; it keeps its images, so it may lose its text only if it has one. */
export function decideEdit(turn: TurnRecord | undefined, prompt: string): EditDecision {
  if (turn === undefined || turn.kind !== 'user') return { kind: 'missing' };
  if (turn.status !== 'queued') {
    return { kind: 'conflict', message: `the prompt has already started or ended (${turn.status}); it cannot change` };
  }
  if (prompt.trim() === '' && turn.input.length === 0) {
    return { kind: 'invalid', message: 'a prompt needs text or an image' };
  }
  return { kind: 'edit' };
}
