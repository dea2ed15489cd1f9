import type { DeleteSessionResponse } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';
import type { CommitResult, HostStoreReader, WriteUnit } from '../store/hostStore.ts';
import type { SessionRecord } from '../store/records.ts';
import type { HostSession } from './hostSession.ts';

export interface SessionArchiveOptions {
  readonly store: Pick<HostStoreReader, 'listTurns'>;
  /** Persist, then publish (the hub hands `session_deleted` to every host stream). */
  readonly commit: (unit: WriteUnit) => Promise<CommitResult>;
  /** The session's checkpoint shadow repository removed; false when it had none (or checkpoints are off). */
  readonly removeCheckpoints: (sessionId: string) => Promise<boolean>;
}

/** What the manager does around a delete: stop routing to the session, or take it back when the delete failed. */
export interface DeleteHooks {
  /** Synchronously, on the session's queue, right before the rows go: later sidecar events are dropped. */
  readonly detach: () => void;
  /** The delete did not commit: the session is served again. */
  readonly reattach: () => void;
}

/**
 * Archive, restore and delete. Both archive and delete are refused (`conflict`) while the session works or
 * waits (a turn running or queued, an interaction pending, background work running): archiving would hide
 * what needs the person, deleting would throw away work in flight. Stop it first (or answer), then act.
 * Restoring is always allowed. A delete closes the session in the sidecar first, then removes, in one
 * transaction, every row and event of it (`deleteSessionIds`) with a `session_deleted` host event, then its
 * checkpoint shadow repository. Claude Code's own transcript (under `~/.claude/projects`) is not Outrigger's
 * and is never deleted; the answer names its ids so the person can remove it.
 */
export class SessionArchive {
  readonly #options: SessionArchiveOptions;

  constructor(options: SessionArchiveOptions) {
    this.#options = options;
  }

  archive(session: HostSession, archived: boolean): Promise<void> {
    return session.setArchived(archived, (record) => {
      if (archived) assertQuiet(record, 'archived');
    });
  }

  async delete(session: HostSession, hooks: DeleteHooks): Promise<DeleteSessionResponse> {
    assertQuiet(session.session, 'deleted');
    if (session.session.worktree?.state === 'active') {
      throw new HostError(
        'conflict',
        'the session has its own git worktree: merge, keep or discard it first, so no work is lost',
      );
    }
    const turns = await this.#options.store.listTurns(session.id);
    const transcriptIds = [
      ...new Set([session.session.providerSessionId, ...turns.flatMap((turn) => turn.providerSessionId ?? [])]),
    ];
    await session.close();
    await session.whileIdle(async () => {
      assertQuiet(session.session, 'deleted');
      hooks.detach();
      try {
        await this.#options.commit({
          deleteSessionIds: [session.id],
          hostEvents: [{ type: 'session_deleted', data: { session_id: session.id } }],
        });
      } catch (error) {
        hooks.reattach();
        throw error;
      }
      session.stop();
    });
    const checkpointsRemoved = await this.#options.removeCheckpoints(session.id);
    return { sessionId: session.id, claudeTranscriptIds: transcriptIds, checkpointsRemoved };
  }
}

/** Refuses to archive or delete a session that works or waits for the person. */
function assertQuiet(session: SessionRecord, what: 'archived' | 'deleted'): void {
  if (session.status === 'needs_input') {
    throw new HostError('conflict', `the session waits for an answer; answer or stop it before it is ${what}`);
  }
  if (session.status === 'running') {
    throw new HostError('conflict', `the session is running; stop it or let it finish before it is ${what}`);
  }
}
