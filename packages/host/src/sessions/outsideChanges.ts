import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import type { SessionRecord, TurnRecord } from '../store/records.ts';
import type { ClaudeTranscripts, TranscriptStat } from './claudeTranscripts.ts';
import { endsExchange, outsideMessages, renderOutsideChanges } from './outsideMessages.ts';
import type { SessionLedger } from './sessionLedger.ts';

/*
 * A transcript that grew outside Outrigger. Claude Code has no lock: when the person continues an Outrigger
 * session in a terminal (`SessionDetail.terminalCommand`), the transcript grows while Outrigger runs no turn,
 * and the live Query still holds the conversation as it was. Before the next turn the host compares the
 * conversation's messages (not bytes: Claude Code appends bookkeeping lines after a result and when it exits)
 * with what Outrigger knows of (`outsideMessages.ts`), shows what is new in a notice, and starts Claude Code
 * again so it reads it.
 */

/** What grew outside Outrigger: the notice's text, the new mark, and the turn the notice goes under. */
export interface OutsideChange {
  readonly text: string;
  /** The last message of the transcript: the session's mark from now on. */
  readonly mark: string;
  /** The newest turn that has ended (the notice follows its rows); null when the session has none. */
  readonly turnId: string | null;
  readonly messages: number;
  /** The other writer's exchange has ended (`endsExchange`); false while it still waits for an answer. */
  readonly ended: boolean;
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

  /**
   * What grew outside Outrigger since it last knew the transcript; undefined when nothing did. With
   * `untilEnded`, a change whose exchange has not ended is returned but not taken as known, so the next check
   * reads it again with its answer.
   */
  async check(
    session: SessionRecord,
    hasTranscript: boolean,
    { untilEnded = false }: { untilEnded?: boolean } = {},
  ): Promise<OutsideChange | undefined> {
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
    const ended = endsExchange(messages);
    if (ended || !untilEnded) this.#known = now;
    const ownPrompts = new Set(turns.flatMap((turn) => (turn.providerTurnId === null ? [] : [turn.providerTurnId])));
    const outside = outsideMessages(messages, session.resumeCursor?.resumeSessionAt, ownPrompts);
    const mark = messages.at(-1)?.uuid;
    if (outside?.length === 0 || mark === undefined) return undefined;
    const endedTurns = turns.filter((turn) => turn.status !== 'queued' && turn.status !== 'running');
    return {
      text: outside === undefined ? UNPLACED : renderOutsideChanges(outside),
      mark,
      turnId: endedTurns.at(-1)?.id ?? null,
      messages: outside?.length ?? 0,
      ended,
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
/**
 * How long it must stay quiet when the other writer's exchange has not ended (its prompt waits for the API, or
 * a tool runs): the notice then shows the prompt with its answer, and shows what is there after this long.
 */
const OUTSIDE_UNENDED_QUIET_MS = 15_000;

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
  /** The quiet periods; the defaults above unless a test shortens them. */
  readonly quietMs?: { readonly ended: number; readonly unended: number };
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
    const change = await this.#check(false);
    if (change !== undefined) await this.#take(change);
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
    // A terminal writes the prompt, then streams the answer: a change is looked at once it is quiet, and shown
    // once its exchange ended (or it stayed quiet long), so one notice has the prompt and its answer.
    this.#lookWhenQuiet(true);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #lookWhenQuiet(untilEnded: boolean): void {
    const quiet = this.#deps.quietMs ?? { ended: OUTSIDE_QUIET_MS, unended: OUTSIDE_UNENDED_QUIET_MS };
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => {
        this.#deps.onQueue(async () => {
          const { ledger } = this.#deps;
          if (this.#stopped || ledger.liveTurns().length > 0 || ledger.queuedTurns().length > 0) return;
          const change = await this.#check(untilEnded);
          if (change !== undefined && !change.ended && untilEnded) return this.#lookWhenQuiet(false);
          if (change !== undefined) await this.#take(change);
          await this.place();
        });
      },
      untilEnded ? quiet.ended : quiet.unended - quiet.ended,
    );
    this.#timer.unref();
  }

  #check(untilEnded: boolean): Promise<OutsideChange | undefined> {
    const { ledger } = this.#deps;
    // A transcript that cannot be read is no reason to refuse the turn: it runs on what Claude Code has.
    return this.#deps.watch
      .check(ledger.session, ledger.hasTranscript(), { untilEnded })
      .catch((error: unknown) => void this.#deps.logFailure(error));
  }

  async #take(change: OutsideChange): Promise<void> {
    this.#deps.logger.info(
      { event: 'session.outside_changes', sessionId: this.#deps.ledger.sessionId, count: change.messages },
      'the transcript grew outside Outrigger; the next turn starts Claude Code again from it',
    );
    await this.#deps.restartClaudeCode();
    this.#pending = change;
  }
}
