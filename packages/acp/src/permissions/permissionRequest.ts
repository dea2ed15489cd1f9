import type { PermissionOption, RequestPermissionOutcome, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { AnswerInteractionBody, Interaction } from '@outrigger/host-api';

/*
 * A host interaction as ACP permission requests, and the picks back as the host's one answer
 * (docs/host-api.md, "Answers"). An approval and a plan are one request each. ACP has no question type, so an
 * AskUserQuestion is one request per question, its choices as options, and "Skip" (the host's reject, which
 * the model reads as the question skipped). A permission picks one option: a multi-select question gets one
 * choice in the editor; the browser offers several.
 */

export interface PermissionAsk {
  readonly toolCall: ToolCallUpdate;
  readonly options: PermissionOption[];
  /** The question this ask is for (questions only). */
  readonly questionId?: string;
}

const SKIP = 'skip';
const KEEP_PLANNING = 'plan';

interface Question {
  readonly id: string;
  readonly question: string;
  readonly options: readonly { readonly label: string }[];
}

export function permissionRequestsOf(interaction: Interaction): PermissionAsk[] {
  const toolCall: ToolCallUpdate = { toolCallId: interaction.tool_use_id, rawInput: interaction.input };
  switch (interaction.kind) {
    case 'approval':
      return [{ toolCall, options: approvalOptions(interaction) }];
    case 'plan':
      return [
        {
          toolCall: { ...toolCall, title: 'Approve the plan?' },
          options: [
            ...interaction.options
              .filter((option) => option.optionId !== KEEP_PLANNING)
              .map(
                (option): PermissionOption => ({ optionId: option.optionId, name: option.name, kind: 'allow_once' }),
              ),
            { optionId: KEEP_PLANNING, name: 'Keep planning', kind: 'reject_once' },
          ],
        },
      ];
    case 'question':
      return questionsOf(interaction).map((question) => ({
        toolCall: { ...toolCall, title: question.question },
        questionId: question.id,
        options: [
          ...question.options.map(
            (option, index): PermissionOption => ({ optionId: String(index), name: option.label, kind: 'allow_once' }),
          ),
          { optionId: SKIP, name: 'Skip', kind: 'reject_once' },
        ],
      }));
  }
}

function approvalOptions(interaction: Interaction): PermissionOption[] {
  const always = interaction.options.find((option) => option.optionId === 'allow_always');
  const covers = always?.sessionGrant?.rules.join(', ');
  return [
    { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
    ...(always === undefined
      ? []
      : [
          {
            optionId: 'allow_always',
            name: covers ? `Allow for this session (${covers})` : 'Allow for this session',
            kind: 'allow_always' as const,
          },
        ]),
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ];
}

/**
 * The host's answer for the editor's picks (one per ask, in order); undefined when the editor cancelled (the
 * interaction then stays for the browser, or ends with its turn).
 */
export function answerOf(
  interaction: Interaction,
  picks: readonly RequestPermissionOutcome[],
): AnswerInteractionBody | undefined {
  const chosen = picks.map((pick) => (pick.outcome === 'selected' ? pick.optionId : undefined));
  if (chosen.length === 0 || chosen.some((id) => id === undefined)) return undefined;
  const ids = chosen as string[];
  switch (interaction.kind) {
    case 'approval': {
      const [id] = ids;
      if (id === 'reject') return { action: 'reject', optionId: 'reject', payload: {} };
      if (id === 'allow' || id === 'allow_always') return { action: 'allow', optionId: id, payload: {} };
      throw new Error(`unknown option ${id} for an approval`);
    }
    case 'plan': {
      const [id] = ids;
      if (id === KEEP_PLANNING) return { action: 'reject', optionId: KEEP_PLANNING, payload: {} };
      if (interaction.options.some((option) => option.optionId === id))
        return { action: 'allow', optionId: id as string, payload: {} };
      throw new Error(`unknown option ${id} for a plan`);
    }
    case 'question': {
      if (ids.includes(SKIP)) return { action: 'reject', optionId: 'reject', payload: {} };
      const questions = questionsOf(interaction);
      const answersByQuestionId: Record<string, string> = {};
      questions.forEach((question, index) => {
        const label = question.options[Number(ids[index])]?.label;
        if (label === undefined) throw new Error(`unknown option ${ids[index]} for the question ${question.id}`);
        answersByQuestionId[question.id] = label;
      });
      return { action: 'allow', optionId: 'allow', payload: { answersByQuestionId } };
    }
  }
}

function questionsOf(interaction: Interaction): Question[] {
  const questions = interaction.input.questions;
  if (!Array.isArray(questions)) return [];
  return questions.flatMap((raw): Question[] => {
    if (typeof raw !== 'object' || raw === null) return [];
    const { id, question, options } = raw as Record<string, unknown>;
    if (typeof id !== 'string' || typeof question !== 'string' || !Array.isArray(options)) return [];
    const labels = options.flatMap((option) =>
      typeof option === 'object' && option !== null && typeof (option as { label?: unknown }).label === 'string'
        ? [{ label: (option as { label: string }).label }]
        : [],
    );
    return [{ id, question, options: labels }];
  });
}
