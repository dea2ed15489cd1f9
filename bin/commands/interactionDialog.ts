import { type InteractionOption, type InteractionRequested, isPlainObject } from '@outrigger/protocol';
import { toolInputLines } from './toolSummary.ts';

/** What `submit_interactive` carries besides the session, turn and request ids. */
export interface InteractionAnswer {
  action: string;
  optionId: string;
  payload: Record<string, unknown>;
}

/**
 * What one typed line does to a step: answers it (`chosen` says in words what was taken, for the
 * transcript: Enter shows nothing on screen), or is refused with `retry`, which says what the step
 * accepts before it is asked again.
 */
export type StepReading = { readonly answer: string; readonly chosen: string } | { readonly retry: string };

/** One typed line answers one step. */
export interface DialogStep {
  /** Shown before the input prompt. */
  readonly lines: readonly string[];
  readonly prompt: string;
  read(line: string): StepReading;
}

/** How the terminal asks the user about one approval or question. */
export interface InteractionDialog {
  readonly steps: readonly DialogStep[];
  /** The submission from every step's answer, in step order. */
  submission(answers: readonly string[]): InteractionAnswer;
}

/** Sent when there is nobody left to answer (input ended): a refusal in every interaction kind. */
export const DECLINED: InteractionAnswer = { action: 'reject', optionId: '', payload: {} };

/**
 * `Allow for [s]ession / [A]llow / [r]eject (Enter: Allow) > `: one key per option, the default's key
 * in capitals (the `[Y/n]` convention) and named, so Enter does what the prompt says. y and n are the
 * answers people type to a yes/no prompt without reading it: they mean allow once and reject.
 */
export function approvalDialog(request: InteractionRequested): InteractionDialog {
  const fallback = defaultOption(request.options);
  const keyed = request.options.map((option) => ({ option, key: approvalKey(option) }));
  const choices = keyed.map(({ option, key }) => labelWithKey(option.name, key, option === fallback));
  const asked = `Claude wants to use ${request.toolCall.name}`;
  const input = toolInputLines(request.input);
  const lines = input.length === 1 ? [`${asked}: ${input[0]}`] : [`${asked}:`, ...input.map((line) => `  ${line}`)];
  const accepted = keyed.map(({ option, key }) => `${[key, ...yesNoKeys(option)].join(' or ')} (${option.name})`);
  const usage = `Type ${accepted.join(', ')}${fallback ? `, or press Enter for ${fallback.name}` : ''}.`;
  return {
    steps: [
      {
        lines: input.length === 0 ? [asked] : lines,
        prompt: `${choices.join(' / ')}${fallback ? ` (Enter: ${fallback.name})` : ''} > `,
        read: (line) => {
          const typed = line.trim().toLowerCase();
          const found =
            typed === ''
              ? fallback
              : keyed.find(
                  ({ option, key }) =>
                    typed === key.toLowerCase() ||
                    typed === option.name.toLowerCase() ||
                    typed === option.optionId ||
                    yesNoWords(option).includes(typed),
                )?.option;
          if (found) return { answer: found.optionId, chosen: found.name };
          return { retry: typed === '' ? usage : `Not a choice. ${usage}` };
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
    steps: [optionListStep(request, heading)],
    submission: ([optionId = '']) => answerWithOption(request.options, optionId),
  };
}

/**
 * The options as a numbered list (the plan's modes): a number picks one; Enter takes the default, the
 * option that allows once (for a plan: approve it and keep approving each edit, the least it can grant);
 * y and n as in an approval.
 */
function optionListStep(request: InteractionRequested, heading: readonly string[]): DialogStep {
  const { options } = request;
  const fallback = defaultOption(options);
  const numberOf = (option: InteractionOption) => options.indexOf(option) + 1;
  const listed = numbered(options.map((option) => (option === fallback ? `${option.name} (Enter)` : option.name)));
  const range = options.length === 1 ? '1' : `from 1 to ${options.length}`;
  const yesNo = options.flatMap((option) => yesNoKeys(option).map((key) => `${key} for ${numberOf(option)}`));
  const usage = `Type a number ${range}${yesNo.length > 0 ? ` (or ${yesNo.join(', ')})` : ''}${fallback ? `, or press Enter for ${numberOf(fallback)}` : ''}.`;
  return {
    lines: [...heading, `${request.toolCall.title}:`, ...listed],
    prompt: `choose a number${fallback ? ` (Enter: ${numberOf(fallback)})` : ''} > `,
    read: (line) => {
      const typed = line.trim().toLowerCase();
      const found =
        typed === ''
          ? fallback
          : (options[pickIndex(typed, options.length)] ?? options.find((option) => yesNoWords(option).includes(typed)));
      if (found) return { answer: found.optionId, chosen: found.name };
      return { retry: typed === '' ? usage : `Not a choice. ${usage}` };
    },
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
      prompt: questionPrompt(question),
      read: (line) => questionAnswer(question, line),
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

function questionPrompt(question: AskedQuestion): string {
  if (question.labels.length === 0) return 'your answer > ';
  return question.multiSelect
    ? 'numbers separated by commas, or your own answer > '
    : 'a number, or your own answer > ';
}

/**
 * Numbers pick offered labels; any other non-blank text is the user's own answer. A question has no
 * default (none of its options is safer than another), so Enter alone says what it takes.
 */
function questionAnswer(question: AskedQuestion, line: string): StepReading {
  const typed = line.trim();
  if (typed === '') {
    const count = question.labels.length;
    const range = count === 1 ? '1' : `from 1 to ${count}`;
    if (count === 0) return { retry: 'Type your answer, then press Enter.' };
    return {
      retry: question.multiSelect
        ? `Type one or more numbers ${range} separated by commas, or your own answer.`
        : `Type a number ${range}, or your own answer.`,
    };
  }
  const parts = typed.split(',').map((part) => part.trim());
  const picks = parts.map((part) => pickIndex(part, question.labels.length));
  if (picks.every((pick) => pick >= 0) && (question.multiSelect || picks.length === 1)) {
    const answer = picks.map((pick) => question.labels[pick]).join(', ');
    return { answer, chosen: answer };
  }
  return { answer: typed, chosen: typed };
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
/** What a hurried yes/no answer means: y allows once (never a standing grant), n rejects. */
const YES_NO_BY_KIND: Record<string, readonly [key: string, word: string]> = {
  allow_once: ['y', 'yes'],
  reject_once: ['n', 'no'],
};

function approvalKey(option: InteractionOption): string {
  return KEY_BY_KIND[option.kind] ?? option.optionId;
}

/** The option Enter takes: the one that allows once, the least a yes can grant; none without it. */
function defaultOption(options: readonly InteractionOption[]): InteractionOption | undefined {
  return options.find((option) => option.kind === 'allow_once');
}

function yesNoKeys(option: InteractionOption): string[] {
  const yesNo = YES_NO_BY_KIND[option.kind];
  return yesNo ? [yesNo[0]] : [];
}

function yesNoWords(option: InteractionOption): readonly string[] {
  return YES_NO_BY_KIND[option.kind] ?? [];
}

/**
 * `Allow` + `a` → `[A]llow`; `Allow for session` + `s` → `Allow for [s]ession`: the key starts a word, in
 * capitals for the default and in small letters otherwise, so the one capital marks what Enter takes.
 */
function labelWithKey(name: string, key: string, isDefault: boolean): string {
  const shown = isDefault ? key.toUpperCase() : key.toLowerCase();
  for (let at = 0; at < name.length; at++) {
    const startsWord = at === 0 || name[at - 1] === ' ';
    if (startsWord && name[at]?.toLowerCase() === key) return `${name.slice(0, at)}[${shown}]${name.slice(at + 1)}`;
  }
  return `${name} [${shown}]`;
}

function numbered(items: readonly string[]): string[] {
  return items.map((item, index) => `  ${index + 1}. ${item}`);
}
