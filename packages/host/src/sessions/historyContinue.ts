import {
  type ContinuedFrom,
  type ContinueHistoryBody,
  type CreateSessionResponse,
  claudeSessionIdSchema,
  historyTiming,
  hostLimits,
  type SessionSettings,
} from '@outrigger/host-api';
import type { ResumeCursor } from '@outrigger/protocol';
import type { ClaudeHistoryReader } from '../history/claudeHistoryReader.ts';
import { HostError } from '../hostError.ts';
import type { NewSessionInit } from '../projection/projectedSessionLedger.ts';
import type { HostStoreReader } from '../store/hostStore.ts';
import type { ClaudeTranscripts } from './claudeTranscripts.ts';
import { resolveSessionCwd } from './cwdPolicy.ts';

/*
 * `POST /api/history/:claudeSessionId/continue`: an Outrigger session that goes on with a Claude Code session
 * from the history, in its directory. `resume` keeps the Claude Code session (its id becomes the Outrigger
 * session's provider session id, and Claude Code is started with `resume` on it); `fork` copies it first
 * (`forkSession`) and resumes the copy, so the original stays as it is. Claude Code has no lock, so a resume
 * of a transcript written in the last minutes (it may be open in a terminal) is refused unless forced, and a
 * Claude Code session only one Outrigger session resumes.
 */

/** A continued session starts with the defaults a new one has; the person changes them as for any session. */
const CONTINUED_SETTINGS: SessionSettings = {
  model: 'default',
  permissionMode: 'default',
  planMode: false,
  effort: null,
};

/** What a continue starts: the new session, started in the sidecar with `resume` on its Claude Code session. */
export interface ContinuedSessionInit extends NewSessionInit {
  readonly continuedFrom: ContinuedFrom;
  readonly resumeCursor: ResumeCursor;
}

export interface HistoryContinueDeps {
  readonly history: ClaudeHistoryReader;
  readonly transcripts: ClaudeTranscripts;
  readonly store: Pick<HostStoreReader, 'findSessionByProviderSession'>;
  readonly allowRoots: readonly string[];
  readonly home?: string;
  readonly newId: () => string;
  /** Starts the session in the sidecar, commits its row and runs it (the manager's). */
  readonly launch: (init: ContinuedSessionInit) => Promise<CreateSessionResponse>;
}

export class HistoryContinue {
  readonly #deps: HistoryContinueDeps;
  /** Claude Code sessions a resume is being made of now: a second request for one meets the first. */
  readonly #resuming = new Map<string, string>();

  constructor(deps: HistoryContinueDeps) {
    this.#deps = deps;
  }

  async continue(claudeSessionId: string, body: ContinueHistoryBody): Promise<CreateSessionResponse> {
    const { history, transcripts } = this.#deps;
    const id = claudeSessionIdOf(claudeSessionId);
    const sessionId = this.#deps.newId();
    const resume = body.mode === 'resume';
    // Before anything is awaited: of two resumes at once, the one asked for first is the one that runs.
    if (resume) this.#reserve(id, sessionId);
    try {
      const found = await history.session(id);
      if (found === undefined) throw new HostError('not_found', 'no Claude Code session has this id');
      if (!found.cwdExists) {
        const message = `the session's directory ${found.cwd} no longer exists: its transcript can be read, not continued`;
        throw new HostError('validation_failed', `Working directory: ${message}`, [{ path: 'cwd', message }]);
      }
      // The same rules as a new session's directory (it exists, it is inside the allowed roots).
      await resolveSessionCwd(found.cwd, this.#deps.allowRoots, this.#deps.home);
      if (resume) {
        const existing =
          found.outriggerSessionId ?? (await this.#deps.store.findSessionByProviderSession(id))?.id ?? undefined;
        if (existing !== undefined) throw alreadyContinued(existing);
        if (found.recentlyActive && body.force !== true) throw inUse();
      }
      const content = await history.content(id);
      const providerSessionId = resume ? id : await transcripts.fork(id, found.cwd, body.title);
      const messages = await transcripts.messages(providerSessionId, found.cwd);
      const mark = messages.at(-1)?.uuid;
      return await this.#deps.launch({
        id: sessionId,
        // Claude Code finds a transcript by the directory it was written in: the path as it recorded it.
        cwd: found.cwd,
        title: body.title ?? titleOf(found.title),
        settings: CONTINUED_SETTINGS,
        providerSessionId,
        continuedFrom: { claudeSessionId: id, mode: body.mode, rows: content?.rows.length ?? 0 },
        resumeCursor: {
          kind: 'claude-agent-sdk',
          version: 1,
          resume: providerSessionId,
          ...(mark === undefined ? {} : { resumeSessionAt: mark }),
          turnCount: 0,
        },
      });
    } finally {
      if (resume && this.#resuming.get(id) === sessionId) this.#resuming.delete(id);
    }
  }

  #reserve(claudeSessionId: string, sessionId: string): void {
    const other = this.#resuming.get(claudeSessionId);
    if (other !== undefined) throw alreadyContinued(other);
    this.#resuming.set(claudeSessionId, sessionId);
  }
}

/** The path parameter, decided as the file name Claude Code uses (`<id>.jsonl`): a UUID and nothing else. */
function claudeSessionIdOf(value: string): string {
  const parsed = claudeSessionIdSchema.safeParse(value);
  if (!parsed.success) {
    throw new HostError('validation_failed', 'not a Claude Code session id (a UUID)', [
      { path: 'claudeSessionId', message: 'not a Claude Code session id' },
    ]);
  }
  return parsed.data;
}

function titleOf(title: string): string | undefined {
  const trimmed = title.trim().replace(/\s+/g, ' ');
  if (trimmed === '') return undefined;
  return trimmed.length <= hostLimits.maxTitleChars ? trimmed : `${trimmed.slice(0, hostLimits.maxTitleChars - 1)}…`;
}

function alreadyContinued(sessionId: string): HostError {
  return new HostError(
    'already_continued',
    `Outrigger session ${sessionId} already continues this Claude Code session: open it, or fork this one to continue a copy`,
    undefined,
    { sessionId },
  );
}

function inUse(): HostError {
  const minutes = Math.round(historyTiming.recentlyActiveMs / 60_000);
  return new HostError(
    'history_in_use',
    `this Claude Code session was written in the last ${minutes} minutes: it may be open in a terminal, and resuming it here would interleave two writers (Claude Code has no lock). Fork it to continue a copy, or resume it anyway (force).`,
  );
}
