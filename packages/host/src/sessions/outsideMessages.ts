import type { TranscriptMessage } from './claudeTranscripts.ts';

/*
 * What in a transcript's conversation grew outside Outrigger, and the notice that shows it
 * (`outsideChanges.ts` decides when to look).
 *
 * What Outrigger knows of ends at the session's mark (`resumeCursor.resumeSessionAt`: the last root assistant
 * message its own Claude Code wrote, the last message of a continued transcript, or the last one an earlier
 * notice showed). After the mark, an exchange (a prompt and what answers it) is Outrigger's own when its
 * prompt is one of the session's turns (a turn's provider turn id is its prompt's uuid); any other is new.
 */

/** Messages shown in a notice at most; the newest are kept. */
const NOTICE_MESSAGES = 24;
/** Characters of one message in a notice at most. */
const NOTICE_MESSAGE_CHARS = 1_200;

/**
 * The messages after `mark` that are not Outrigger's own; undefined when the mark is not in the conversation
 * (it was compacted or rewound elsewhere): then nothing can be placed.
 */
export function outsideMessages(
  messages: readonly TranscriptMessage[],
  mark: string | undefined,
  ownPrompts: ReadonlySet<string>,
): TranscriptMessage[] | undefined {
  const at = mark === undefined ? -1 : messages.findIndex((message) => message.uuid === mark);
  if (mark !== undefined && at === -1) return undefined;
  const outside: TranscriptMessage[] = [];
  // What follows the mark before any prompt belongs to the mark's exchange: Outrigger's own (an interruption
  // marker after its answer), or one shown before whose answer was written after the notice.
  let own = true;
  for (let index = at; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (!isPrompt(message)) continue;
    own = ownPrompts.has(message.uuid);
    break;
  }
  for (const message of messages.slice(at + 1)) {
    if (isPrompt(message)) own = ownPrompts.has(message.uuid);
    if (!own && renderMessage(message) !== '') outside.push(message);
  }
  return outside;
}

/** A user message the person typed (not a tool result, an interruption marker or a background task's report). */
function isPrompt(message: TranscriptMessage): boolean {
  if (message.type !== 'user') return false;
  const content = contentOf(message);
  if (typeof content === 'string') return !isBookkeeping(content);
  if (!Array.isArray(content)) return false;
  if (content.some((block) => blockType(block) === 'tool_result')) return false;
  const text = content.map((block) => (blockType(block) === 'text' ? String(blockField(block, 'text')) : '')).join('');
  return !isBookkeeping(text);
}

function isBookkeeping(text: string): boolean {
  return text.startsWith('[Request interrupted by user') || text.startsWith('<task-notification>');
}

/**
 * Whether the conversation's last message ends an exchange: an answer that calls no tool, or the person's
 * interruption. A prompt, a tool call or a tool's result means the other writer is still in its turn.
 */
export function endsExchange(messages: readonly TranscriptMessage[]): boolean {
  const last = messages.at(-1);
  if (last === undefined) return true;
  const content = contentOf(last);
  if (last.type === 'user') {
    const text = typeof content === 'string' ? content : textOf(content);
    return text.startsWith('[Request interrupted by user');
  }
  return !Array.isArray(content) || !content.some((block) => blockType(block) === 'tool_use');
}

/** The notice's text: how many messages, then each prompt (`›`) and answer, cut; the newest when there are many. */
export function renderOutsideChanges(messages: readonly TranscriptMessage[]): string {
  const parts = messages.flatMap((message) => {
    const rendered = renderMessage(message);
    return rendered === '' ? [] : [rendered];
  });
  const shown = parts.slice(-NOTICE_MESSAGES);
  const lines = [
    `The conversation went on outside Outrigger (in a terminal, or another program): ${count(messages.length, 'new message')}. The next turn continues from ${messages.length === 1 ? 'it' : 'them'}.`,
  ];
  if (parts.length > shown.length) lines.push(`… ${count(parts.length - shown.length, 'earlier message')} not shown`);
  lines.push(...shown);
  return lines.join('\n\n');
}

function renderMessage(message: TranscriptMessage): string {
  const content = contentOf(message);
  if (message.type === 'user') {
    if (!isPrompt(message)) return '';
    const text = typeof content === 'string' ? content : textOf(content);
    // A blank line separates the notice's messages (the web reads them back so), so a prompt keeps single ones.
    return `› ${cut(text.trim().replace(/\n\s*\n/g, '\n'))}`;
  }
  if (!Array.isArray(content)) return typeof content === 'string' ? cut(content.trim()) : '';
  const pieces = content.flatMap((block) => {
    if (blockType(block) === 'text') return [String(blockField(block, 'text')).trim()];
    if (blockType(block) === 'tool_use') return [`(used ${String(blockField(block, 'name'))})`];
    return [];
  });
  return cut(pieces.filter((piece) => piece !== '').join('\n'));
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((block) => blockType(block) === 'text')
    .map((block) => String(blockField(block, 'text')))
    .join('\n');
}

function cut(text: string): string {
  return text.length <= NOTICE_MESSAGE_CHARS ? text : `${text.slice(0, NOTICE_MESSAGE_CHARS).trimEnd()}…`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function contentOf(message: TranscriptMessage): unknown {
  return typeof message.message === 'object' && message.message !== null
    ? (message.message as { content?: unknown }).content
    : undefined;
}

function blockType(block: unknown): unknown {
  return blockField(block, 'type');
}

function blockField(block: unknown, field: string): unknown {
  return typeof block === 'object' && block !== null ? (block as Record<string, unknown>)[field] : undefined;
}
