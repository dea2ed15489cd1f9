import type { AnswerInteractionBody, Interaction } from '@outrigger/host-api';

/** One AskUserQuestion question as the form shows it. */
export interface Question {
  id: string;
  question: string;
  header: string | null;
  multiSelect: boolean;
  options: { label: string; description: string | null }[];
}

/** The questions of an AskUserQuestion interaction; each has the `id` its answer is keyed by. */
export function questionsOf(interaction: Pick<Interaction, 'input'>): Question[] {
  const raw = Array.isArray(interaction.input.questions) ? interaction.input.questions : [];
  return raw.flatMap((entry, index): Question[] => {
    if (typeof entry !== 'object' || entry === null) return [];
    const question = entry as Record<string, unknown>;
    const options = Array.isArray(question.options) ? question.options : [];
    return [
      {
        id: typeof question.id === 'string' ? question.id : `question-${index}`,
        question: typeof question.question === 'string' ? question.question : '',
        header: typeof question.header === 'string' ? question.header : null,
        multiSelect: question.multiSelect === true,
        options: options.flatMap((option) => {
          if (typeof option !== 'object' || option === null) return [];
          const { label, description } = option as Record<string, unknown>;
          if (typeof label !== 'string') return [];
          return [{ label, description: typeof description === 'string' ? description : null }];
        }),
      },
    ];
  });
}

/** What the person picked for one question: option labels, and the "Other…" text when given. */
export interface QuestionChoice {
  selected: string[];
  other: string;
}

/** A question is answered once it has an option or non-blank "Other…" text. */
export function isAnswered(choice: QuestionChoice | undefined): boolean {
  return choice !== undefined && (choice.selected.length > 0 || choice.other.trim() !== '');
}

/** The answer body: `answersByQuestionId` with a string (single choice) or a list (multi-select). */
export function questionAnswer(
  questions: Question[],
  choices: Readonly<Record<string, QuestionChoice>>,
): AnswerInteractionBody {
  const answersByQuestionId: Record<string, string | string[]> = {};
  for (const question of questions) {
    const choice = choices[question.id] ?? { selected: [], other: '' };
    const other = choice.other.trim();
    const values = [...choice.selected, ...(other === '' ? [] : [other])];
    answersByQuestionId[question.id] = question.multiSelect ? values : (values[0] ?? '');
  }
  return { action: 'allow', optionId: 'allow', payload: { answersByQuestionId } };
}

/** What a question's answer chose, for the line that stays once it is answered: `PostgreSQL`, `a, b`. */
export function chosenAnswers(payload: Readonly<Record<string, unknown>>): string {
  const answers = payload.answersByQuestionId;
  if (typeof answers !== 'object' || answers === null) return '';
  return Object.values(answers)
    .flatMap((value) => (Array.isArray(value) ? value : [value]))
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '')
    .join(', ');
}

export function approvalAnswer(choice: 'allow' | 'allow_always' | 'reject', denyMessage = ''): AnswerInteractionBody {
  if (choice === 'reject') {
    const message = denyMessage.trim();
    return { action: 'reject', optionId: 'reject', payload: message === '' ? {} : { denyMessage: message } };
  }
  return { action: 'allow', optionId: choice, payload: {} };
}

/** ExitPlanMode: go ahead in the chosen permission mode, or keep planning. */
export function planAnswer(optionId: string | null): AnswerInteractionBody {
  if (optionId === null) return { action: 'reject', optionId: 'plan', payload: {} };
  return { action: 'allow', optionId, payload: {} };
}

/** The plan text of an ExitPlanMode call. */
export function planOf(interaction: Pick<Interaction, 'input'>): string {
  return typeof interaction.input.plan === 'string' ? interaction.input.plan : '';
}
