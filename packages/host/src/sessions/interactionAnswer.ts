import type { AnswerInteractionBody, Interaction, InteractionAnswer } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';
import type { HostStoreReader } from '../store/hostStore.ts';
import type { SessionInSidecar } from './sessionInSidecar.ts';
import type { SessionLedger } from './sessionLedger.ts';

/**
 * What an answer to a stored interaction does (*answered once*): the first answer to a pending one is
 * submitted; the same answer again is a replay (nothing is sent); a different one is a conflict; an
 * interaction that was superseded is gone.
 */
export type AnswerDecision = 'submit' | 'replay' | 'conflict' | 'gone';

export function decideAnswer(interaction: Interaction, body: AnswerInteractionBody): AnswerDecision {
  if (interaction.status === 'pending') return 'submit';
  if (interaction.status === 'superseded') return 'gone';
  return interaction.answer !== null && sameAnswer(interaction.answer, body) ? 'replay' : 'conflict';
}

function sameAnswer(recorded: InteractionAnswer, body: AnswerInteractionBody): boolean {
  return (
    recorded.action === body.action &&
    recorded.optionId === body.optionId &&
    canonicalJson(recorded.payload) === canonicalJson(body.payload)
  );
}

/** JSON with object keys sorted, so two equal answers compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

/** What answering needs of its session (called on the session's queue). */
export interface AnsweringSession {
  readonly sessionId: string;
  readonly store: Pick<HostStoreReader, 'getInteraction'>;
  readonly ledger: Pick<SessionLedger, 'apply'>;
  readonly inSidecar: Pick<SessionInSidecar, 'liveGeneration' | 'submit'>;
}

/**
 * Answers a stored interaction: a replay or a conflict is decided on the stored row, a first answer is
 * submitted to the sidecar that asked, and only the answer the agent took is recorded.
 */
export async function answerInteraction(
  session: AnsweringSession,
  requestId: string,
  body: AnswerInteractionBody,
): Promise<{ replayed: boolean; interaction: Interaction }> {
  const { sessionId, store, ledger, inSidecar } = session;
  const interaction = await store.getInteraction(sessionId, requestId);
  if (interaction === undefined) throw new HostError('not_found', 'no such interaction in this session');
  switch (decideAnswer(interaction, body)) {
    case 'replay':
      return { replayed: true, interaction };
    case 'conflict':
      throw new HostError('conflict', 'the interaction was already answered differently');
    case 'gone':
      throw new HostError('gone', 'the interaction can no longer be answered');
    case 'submit':
      break;
  }
  const generation = inSidecar.liveGeneration();
  if (generation === undefined) {
    throw new HostError('gone', 'the sidecar that asked has exited; the request is superseded');
  }
  const result = await inSidecar.submit(generation, {
    agentSessionId: sessionId,
    turnId: interaction.turnId,
    requestId,
    action: body.action,
    optionId: body.optionId,
    payload: body.payload,
  });
  switch (result.disposition) {
    case 'answered':
      await ledger.apply({
        type: 'interactionAnswered',
        requestId,
        answer: { action: body.action, optionId: body.optionId, payload: body.payload },
      });
      break;
    case 'conflict':
      throw new HostError('conflict', 'the agent already has a different answer to this request');
    case 'superseded':
    case 'unknown':
      await ledger.apply({ type: 'interactionSuperseded', requestId, resolution: 'turn_ended' });
      throw new HostError('gone', 'the interaction can no longer be answered');
    case 'pending':
      throw new HostError('sidecar_unavailable', 'the answer did not reach the agent; try again');
  }
  const stored = await store.getInteraction(sessionId, requestId);
  if (stored === undefined) throw new HostError('internal', 'the answered interaction is missing');
  return { replayed: false, interaction: stored };
}
