import { type InteractionOption, type InteractionRequested, isPlainObject } from '@outrigger/protocol';
import { toolInputLines } from './toolSummary.ts';

/** What `submit_interactive` carries besides the session, turn and request ids. */
export interface InteractionAnswer {
  action: string;
  optionId: string;
  payload: Record<string, unknown>;
}

/** One typed line answers one step. */
export interface DialogStep {
  /** Shown before the input prompt. */
  readonly lines: readonly string[];
  readonly prompt: string;
  /** The step's answer, or undefined when the line does not answer it (the step is asked again). */
  parse(line: string): string | undefined;
}

/** How the terminal asks the user about one approval or question. */
export interface InteractionDialog {
  readonly steps: readonly DialogStep[];
  /** The submission from every step's answer, in step order. */
  submission(answers: readonly string[]): InteractionAnswer;
}

/** Sent when there is nobody left to answer (input ended): a refusal in every interaction kind. */
export const DECLINED: InteractionAnswer = { action: 'reject', optionId: '', payload: {} };

export function approvalDialog(request: InteractionRequested): InteractionDialog {
  const keyed = request.options.map((option) => ({ option, key: approvalKey(option) }));
  const choices = keyed.map(({ option, key }) => labelWithKey(option.name, key));
  const asked = `Claude wants to use ${request.toolCall.name}`;
  const input = toolInputLines(request.input);
  const lines = input.length === 1 ? [`${asked}: ${input[0]}`] : [`${asked}:`, ...input.map((line) => `  ${line}`)];
  return {
    steps: [
      {
        lines: input.length === 0 ? [asked] : lines,
        prompt: `${choices.join(' / ')} > `,
        parse: (line) => {
          const typed = line.trim().toLowerCase();
          const found = keyed.find(
            ({ option, key }) => typed === key || typed === option.name.toLowerCase() || typed === option.optionId,
          );
          return found?.option.optionId;
        },
      },
    ],
    submission: ([optionId = '']) => answerWithOption(request.options, optionId),
  };
}

export function userInputDialog(request: InteractionRequested): InteractionDialog {
  if (request.toolName === 'AskUserQuestion') return questionDialog(request);
  const plan = typeof request.input.plan === 'string' ? request.input.plan.trimEnd().split('\n') : [];
  const heading = plan.length > 0 ? ["Claude's plan:", ...plan.map((line) => `  ${line}`)] : [];
  return {
    steps: [
      {
        lines: [...heading, `${request.toolCall.title}:`, ...numbered(request.options.map((option) => option.name))],
        prompt: 'choose a number > ',
        parse: (line) => request.options[pickIndex(line, request.options.length)]?.optionId,
      },
    ],
    submission: ([optionId = '']) => answerWithOption(request.options, optionId),
  };
}

interface AskedQuestion {
  id: string;
  question: string;
  header: string;
  labels: string[];
  descriptions: string[];
  multiSelect: boolean;
}

function questionDialog(request: InteractionRequested): InteractionDialog {
  const questions = askedQuestions(request.input);
  return {
    steps: questions.map((question) => ({
      lines: [
        `${question.header ? `[${question.header}] ` : ''}${question.question}`,
        ...numbered(
          question.labels.map((label, index) =>
            question.descriptions[index] ? `${label} — ${question.descriptions[index]}` : label,
          ),
        ),
      ],
      prompt: question.multiSelect
        ? 'numbers separated by commas, or your own answer > '
        : 'a number, or your own answer > ',
      parse: (line) => questionAnswer(question, line),
    })),
    submission: (answers) => ({
      action: 'allow',
      optionId: '',
      payload: {
        answersByQuestionId: Object.fromEntries(
          questions.map((question, index) => [question.id, answers[index] ?? '']),
        ),
      },
    }),
  };
}

function askedQuestions(input: Record<string, unknown>): AskedQuestion[] {
  const raw = Array.isArray(input.questions) ? input.questions : [];
  return raw.flatMap((record: unknown): AskedQuestion[] => {
    if (!isPlainObject(record)) return [];
    if (typeof record.id !== 'string' || typeof record.question !== 'string') return [];
    const options = Array.isArray(record.options) ? record.options : [];
    const labels: string[] = [];
    const descriptions: string[] = [];
    for (const option of options) {
      if (!isPlainObject(option) || typeof option.label !== 'string') continue;
      labels.push(option.label);
      descriptions.push(typeof option.description === 'string' ? option.description : '');
    }
    return [
      {
        id: record.id,
        question: record.question,
        header: typeof record.header === 'string' ? record.header : '',
        labels,
        descriptions,
        multiSelect: record.multiSelect === true,
      },
    ];
  });
}

/** Numbers pick offered labels; any other non-blank text is the user's own answer. */
function questionAnswer(question: AskedQuestion, line: string): string | undefined {
  const typed = line.trim();
  if (typed === '') return undefined;
  const parts = typed.split(',').map((part) => part.trim());
  const picks = parts.map((part) => pickIndex(part, question.labels.length));
  if (picks.every((pick) => pick >= 0) && (question.multiSelect || picks.length === 1)) {
    return picks.map((pick) => question.labels[pick]).join(', ');
  }
  return typed;
}

/** The 0-based index a typed 1-based number names, or -1. */
function pickIndex(line: string, count: number): number {
  const typed = line.trim();
  if (!/^\d+$/.test(typed)) return -1;
  const index = Number(typed) - 1;
  return index >= 0 && index < count ? index : -1;
}

function answerWithOption(options: readonly InteractionOption[], optionId: string): InteractionAnswer {
  const option = options.find((candidate) => candidate.optionId === optionId);
  if (!option) return DECLINED;
  return { action: option.kind.startsWith('reject') ? 'reject' : 'allow', optionId, payload: {} };
}

const KEY_BY_KIND: Record<string, string> = { allow_once: 'a', allow_always: 's', reject_once: 'r' };

function approvalKey(option: InteractionOption): string {
  return KEY_BY_KIND[option.kind] ?? option.optionId;
}

/** `Allow` + `a` → `[A]llow`; `Allow for session` + `s` → `Allow for [s]ession`: the key starts a word. */
function labelWithKey(name: string, key: string): string {
  for (let at = 0; at < name.length; at++) {
    const startsWord = at === 0 || name[at - 1] === ' ';
    if (startsWord && name[at]?.toLowerCase() === key) return `${name.slice(0, at)}[${name[at]}]${name.slice(at + 1)}`;
  }
  return `${name} [${key}]`;
}

function numbered(items: readonly string[]): string[] {
  return items.map((item, index) => `  ${index + 1}. ${item}`);
}
