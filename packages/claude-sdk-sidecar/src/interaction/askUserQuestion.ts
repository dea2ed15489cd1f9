import { asRecord } from '../shared/sdkValues.ts';

export interface AskedQuestion {
  readonly id: string;
  readonly question: string;
}

export interface QuestionAnswers {
  /** Question text → answer; multi-select answers comma-joined, as Claude Code expects. */
  readonly answers: Record<string, string>;
  /** Question text → the user's notes, preview or how the question went unanswered. */
  readonly annotations?: Record<string, Record<string, string>>;
}

/**
 * The AskUserQuestion input as published to the host, with an id on every question. Questions that
 * carry no id get `contractQuestionId` of the question as Claude Code sent it, which a host can compute
 * on its own to key its answers.
 */
export function identifyQuestions(input: Record<string, unknown>): {
  readonly published: Record<string, unknown>;
  readonly questions: readonly AskedQuestion[];
} {
  const raw = Array.isArray(input.questions) ? input.questions : [];
  const questions: AskedQuestion[] = [];
  const publishedQuestions = raw.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return entry;
    const record = entry as Record<string, unknown>;
    const id = typeof record.id === 'string' && record.id.trim() !== '' ? record.id : contractQuestionId(record);
    const question = typeof record.question === 'string' ? record.question : '';
    questions.push({ id, question });
    return { ...record, id };
  });
  return { published: { ...input, questions: publishedQuestions }, questions };
}

/**
 * `contract-question-<hash>`: the 32-bit FNV-1a (offset basis 0x811c9dc5, prime 0x01000193) of
 * `JSON.stringify(question)`, one step per Unicode code point (not per UTF-16 unit or byte), in base 36.
 * GUIs built for the original sidecar compute the same id from the question they were shown.
 */
export function contractQuestionId(question: Record<string, unknown>): string {
  let hash = 0x811c9dc5;
  for (const character of JSON.stringify(question)) {
    hash ^= character.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `contract-question-${hash.toString(36)}`;
}

/**
 * Reads the host's answers: `payload.answersByQuestionId` (preferred) or `payload.answers`, keyed by
 * question id or text; `payload.annotations` likewise. Everything is re-keyed to the question text.
 */
export function answersFromPayload(
  questions: readonly AskedQuestion[],
  payload: Record<string, unknown>,
): QuestionAnswers {
  const textFor = (key: string): string | undefined =>
    questions.find((question) => question.id === key)?.question ??
    questions.find((question) => question.question === key)?.question;

  const answers: Record<string, string> = {};
  for (const source of [payload.answers, payload.answersByQuestionId]) {
    for (const [key, value] of entriesOf(source)) {
      const text = textFor(key);
      const answer = answerText(value);
      if (text !== undefined && answer !== undefined) answers[text] = answer;
    }
  }

  const annotations: Record<string, Record<string, string>> = {};
  for (const [key, value] of entriesOf(payload.annotations)) {
    const text = textFor(key);
    const annotation = annotationOf(value);
    if (text !== undefined && annotation !== undefined) annotations[text] = annotation;
  }
  return Object.keys(annotations).length > 0 ? { answers, annotations } : { answers };
}

function entriesOf(value: unknown): [string, unknown][] {
  return Object.entries(asRecord(value) ?? {});
}

function answerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(', ');
  return undefined;
}

const annotationFields = ['notes', 'preview', 'unanswered'] as const;

function annotationOf(value: unknown): Record<string, string> | undefined {
  const annotation: Record<string, string> = {};
  for (const [field, content] of entriesOf(value)) {
    if ((annotationFields as readonly string[]).includes(field) && typeof content === 'string') {
      annotation[field] = content;
    }
  }
  return Object.keys(annotation).length > 0 ? annotation : undefined;
}
