import type { AnswerInteractionBody, Interaction, InteractionAnswer } from '@outrigger/host-api';

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
