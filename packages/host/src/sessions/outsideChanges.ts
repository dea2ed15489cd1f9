import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import type { SessionRecord, TurnRecord } from '../store/records.ts';
import type { ClaudeTranscripts, TranscriptMessage, TranscriptStat } from './claudeTranscripts.ts';
import type { SessionLedger } from './sessionLedger.ts';

/*
 * A transcript that grew outside Outrigger. Claude Code has no lock: when the person continues an Outrigger
 * session in a terminal (`SessionDetail.terminalCommand`), the transcript grows while Outrigger runs no turn,
 * and the live Query still holds the conversation as it was. Before the next turn the host compares the
 * conversation's messages (not bytes: Claude Code appends bookkeeping lines after a result and when it exits)
 * with what Outrigger knows of, shows what is new in a notice, and starts Claude Code again so it reads it.
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

/** What grew outside Outrigger: the notice's text, the new mark, and the turn the notice goes under. */
export interface OutsideChange {
  readonly text: string;
  /** The last message of the transcript: the session's mark from now on. */
  readonly mark: string;
  /** The newest turn that has ended (the notice follows its rows); null when the session has none. */
  readonly turnId: string | null;
  readonly messages: number;
}

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

export interface TranscriptWatchDeps {
  readonly transcripts: ClaudeTranscripts;
  /** The session's turns (their provider turn ids are its prompts' uuids). */
  readonly turns: (sessionId: string) => Promise<readonly TurnRecord[]>;
}

/**
 * One session's transcript as Outrigger last knew it (its file's size and time): a turn's end records it, and
 * before the next turn one `stat` says whether anything wrote since. Only then are the messages read and
 * compared. Not durable: after a restart the first check reads the messages once.
 */
export class TranscriptWatch {
  readonly #deps: TranscriptWatchDeps;
  #known: TranscriptStat | undefined;

  constructor(deps: TranscriptWatchDeps) {
    this.#deps = deps;
  }

  /** A turn ended: the file as it is now is Outrigger's own writing. */
  async turnEnded(session: SessionRecord): Promise<void> {
    if (!watched(session)) return;
    this.#known = await this.#deps.transcripts.stat(session.providerSessionId, session.cwd).catch(() => undefined);
  }

  /** What grew outside Outrigger since it last knew the transcript; undefined when nothing did. */
  async check(session: SessionRecord, hasTranscript: boolean): Promise<OutsideChange | undefined> {
    if (!watched(session) || (!hasTranscript && session.continuedFrom === null)) return undefined;
    // Its own background work may write meanwhile, and a restart would stop it: looked at once it is done.
    if (session.backgroundTasks.length > 0) return undefined;
    const { transcripts } = this.#deps;
    const now = await transcripts.stat(session.providerSessionId, session.cwd).catch(() => undefined);
    if (now === undefined || (this.#known !== undefined && sameStat(now, this.#known))) return undefined;
    const [messages, turns] = await Promise.all([
      transcripts.messages(session.providerSessionId, session.cwd),
      this.#deps.turns(session.id),
    ]);
    this.#known = now;
    const ownPrompts = new Set(turns.flatMap((turn) => (turn.providerTurnId === null ? [] : [turn.providerTurnId])));
    const outside = outsideMessages(messages, session.resumeCursor?.resumeSessionAt, ownPrompts);
    const mark = messages.at(-1)?.uuid;
    if (outside?.length === 0 || mark === undefined) return undefined;
    const ended = turns.filter((turn) => turn.status !== 'queued' && turn.status !== 'running');
    return {
      text: outside === undefined ? UNPLACED : renderOutsideChanges(outside),
      mark,
      turnId: ended.at(-1)?.id ?? null,
      messages: outside?.length ?? 0,
    };
  }
}

/** The mark is gone from the conversation: what changed cannot be told apart from what Outrigger knew. */
const UNPLACED =
  'The conversation changed outside Outrigger (in a terminal, or another program) in a way it cannot show here: it may have been compacted or rewound there. The next turn continues from the conversation as it is now.';

/** Sessions whose transcript may be written elsewhere: every open one (a closed one runs no turn). */
function watched(session: SessionRecord): boolean {
  return !session.closed && session.providerSessionId !== '';
}

function sameStat(a: TranscriptStat, b: TranscriptStat): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** How long a transcript that changed outside a turn must stay quiet before it is looked at. */
const OUTSIDE_QUIET_MS = 1_000;

export interface SessionOutsideDeps {
  readonly watch: Pick<TranscriptWatch, 'turnEnded' | 'check'>;
  /** The session's ledger: the session as it is now, and where the notice is applied. */
  readonly ledger: Pick<
    SessionLedger,
    'sessionId' | 'session' | 'hasTranscript' | 'liveTurns' | 'queuedTurns' | 'apply'
  >;
  /** Stops the session's Claude Code, so the next turn starts one that reads the transcript. */
  readonly restartClaudeCode: () => Promise<void>;
  /** Runs work on the session's queue. */
  readonly onQueue: (work: () => Promise<void>) => void;
  readonly logger: Pick<RuntimeLogger, 'info'>;
  readonly logFailure: (error: unknown) => void;
}

/**
 * One `HostSession`'s side of it, always on the session's queue: before a turn, what grew outside is shown (a
 * notice under the newest ended turn, or under the turn about to start) and the session's Claude Code stopped;
 * while idle, the history's watch does the same once the other writer paused.
 */
export class SessionOutside {
  readonly #deps: SessionOutsideDeps;
  /** Grown outside Outrigger, not yet shown: the session had no turn to show it under. */
  #pending: OutsideChange | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(deps: SessionOutsideDeps) {
    this.#deps = deps;
  }

  turnEnded(): Promise<void> {
    return this.#deps.watch.turnEnded(this.#deps.ledger.session);
  }

  /** Before a turn (`nextTurnId`: the one about to start, when it exists already). */
  async beforeTurn(nextTurnId?: string): Promise<void> {
    const { ledger } = this.#deps;
    // A transcript that cannot be read is no reason to refuse the turn: it runs on what Claude Code has.
    const change = await this.#deps.watch
      .check(ledger.session, ledger.hasTranscript())
      .catch((error: unknown) => void this.#deps.logFailure(error));
    if (change !== undefined) {
      this.#deps.logger.info(
        { event: 'session.outside_changes', sessionId: ledger.sessionId, count: change.messages },
        'the transcript grew outside Outrigger; the next turn starts Claude Code again from it',
      );
      await this.#deps.restartClaudeCode();
      this.#pending = change;
    }
    await this.place(nextTurnId);
  }

  /** The notice of what grew outside, once there is a turn to show it under. */
  async place(nextTurnId?: string): Promise<void> {
    const pending = this.#pending;
    const turnId = pending?.turnId ?? nextTurnId;
    if (pending === undefined || turnId === undefined) return;
    await this.#deps.ledger.apply({ type: 'outsideChanges', turnId, text: pending.text, mark: pending.mark });
    this.#pending = undefined;
  }

  /** The transcript changed on disk: looked at once it has been quiet a moment, unless a turn runs or waits. */
  changed(): void {
    // A terminal writes the prompt, then streams the answer.
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#deps.onQueue(async () => {
        const { ledger } = this.#deps;
        if (this.#stopped || ledger.liveTurns().length > 0 || ledger.queuedTurns().length > 0) return;
        await this.beforeTurn();
      });
    }, OUTSIDE_QUIET_MS);
    this.#timer.unref();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}
