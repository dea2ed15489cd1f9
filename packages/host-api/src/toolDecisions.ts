import type { Interaction, InteractionAnswer } from './interactions.ts';
import type { AnsweredQuestion, ToolDecision, ToolDecisionChoice } from './messages.ts';

/*
 * The decision a resolved interaction leaves on its tool call. The host stores it with the tool row when
 * the interaction is answered or superseded; a client only reads it (so the words it shows are the same
 * live and after a reload).
 */

const refusals: ReadonlySet<string> = new Set(['reject', 'reject_once', 'deny', 'decline', 'cancel']);

const isRefusal = (answer: InteractionAnswer): boolean => refusals.has(answer.action) || refusals.has(answer.optionId);

/** The person refused the call: an approval denied, a question skipped, a plan sent back. */
export function isRefusedDecision(decision: Pick<ToolDecision, 'choice'> | null): boolean {
  const choice = decision?.choice;
  return choice === 'denied' || choice === 'skipped' || choice === 'kept_planning';
}

/** The decision of `interaction`, resolved with `answer` (null: superseded) at `decidedAt`. */
export function toolDecisionOf(
  interaction: Pick<Interaction, 'requestId' | 'kind' | 'input' | 'options' | 'resolution'>,
  answer: InteractionAnswer | null,
  decidedAt: number,
): ToolDecision {
  const refused = answer !== null && isRefusal(answer);
  const choice: ToolDecisionChoice =
    answer === null
      ? 'not_answered'
      : interaction.kind === 'question'
        ? refused
          ? 'skipped'
          : 'answered'
        : interaction.kind === 'plan'
          ? refused
            ? 'kept_planning'
            : 'plan_approved'
          : refused
            ? 'denied'
            : answer.optionId === 'allow_always'
              ? 'allowed_for_session'
              : 'allowed_once';
  const denyMessage =
    refused && typeof answer.payload.denyMessage === 'string' ? answer.payload.denyMessage.trim() : '';
  const grant = interaction.options.find((option) => option.optionId === 'allow_always')?.sessionGrant;
  return {
    requestId: interaction.requestId,
    kind: interaction.kind,
    choice,
    resolution: answer === null ? (interaction.resolution ?? 'turn_ended') : 'answered',
    answer,
    denyMessage: choice === 'denied' && denyMessage !== '' ? denyMessage : null,
    sessionGrant: choice === 'allowed_for_session' && grant !== undefined ? grant : null,
    questions: choice === 'answered' ? answeredQuestions(interaction.input, answer!.payload) : [],
    permissionMode: choice === 'plan_approved' ? answer!.optionId || null : null,
    decidedAt,
  };
}

/** Each asked question with its answers by question id (`answersByQuestionId`) and notes (`annotations`). */
function answeredQuestions(input: Record<string, unknown>, payload: Record<string, unknown>): AnsweredQuestion[] {
  const byId = record(payload.answersByQuestionId) ?? {};
  const notesById = record(payload.annotations) ?? {};
  const asked = Array.isArray(input.questions) ? input.questions : [];
  return asked.flatMap((entry): AnsweredQuestion[] => {
    const question = record(entry);
    if (question === undefined) return [];
    const id = typeof question.id === 'string' ? question.id : '';
    const value = byId[id];
    const answers = (Array.isArray(value) ? value : [value]).filter(
      (item): item is string => typeof item === 'string' && item.trim() !== '',
    );
    const notes = record(notesById[id])?.notes;
    return [
      {
        question: typeof question.question === 'string' ? question.question : '',
        header: typeof question.header === 'string' ? question.header : null,
        answers,
        notes: typeof notes === 'string' && notes.trim() !== '' ? notes : null,
      },
    ];
  });
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
