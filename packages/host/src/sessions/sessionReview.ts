import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  FilePatch,
  FilePatchQuery,
  RevertBody,
  RewindBody,
  RewindResult,
  SessionChanges,
} from '@outrigger/host-api';
import { checkpointFailure, SessionCheckpoints } from '../checkpoints/sessionCheckpoints.ts';
import { CheckpointConflictError, ShadowRepository, UnknownCheckpointError } from '../checkpoints/shadowRepository.ts';
import { GitError } from '../git/runGit.ts';
import { HostError } from '../hostError.ts';
import type { SessionCommand } from '../projection/sessionCommand.ts';
import type { HostStoreReader } from '../store/hostStore.ts';
import type { SessionRecord } from '../store/records.ts';
import type { HostSession } from './hostSession.ts';

export interface SessionReviewOptions {
  /** Where the sessions' shadow repositories live (`DATA/checkpoints`): one `<session id>.git` each. */
  readonly checkpointsDir: string;
  readonly store: Pick<HostStoreReader, 'listTurns'>;
}

/**
 * The review and undo routes over the sessions' checkpoints: every turn's diff, a file's patch, rewind
 * and revert (each refused while a turn runs, each recorded as an event). Git's failures become the API's
 * `git_unavailable`, a hunk that no longer applies its `conflict`.
 */
export class SessionReview {
  readonly #options: SessionReviewOptions;
  readonly #checkpoints = new Map<string, SessionCheckpoints>();

  constructor(options: SessionReviewOptions) {
    this.#options = options;
  }

  /** The session's checkpoints (its shadow repository opens on first use). */
  checkpointsOf(session: Pick<SessionRecord, 'id' | 'cwd'>): SessionCheckpoints {
    let checkpoints = this.#checkpoints.get(session.id);
    if (checkpoints === undefined) {
      const gitDir = join(this.#options.checkpointsDir, `${session.id}.git`);
      checkpoints = new SessionCheckpoints(() => ShadowRepository.open({ gitDir, workTree: session.cwd }));
      this.#checkpoints.set(session.id, checkpoints);
    }
    return checkpoints;
  }

  /** Removes the session's shadow repository (a deleted session); false when it had none. */
  async remove(sessionId: string): Promise<boolean> {
    this.#checkpoints.delete(sessionId);
    const gitDir = join(this.#options.checkpointsDir, `${sessionId}.git`);
    const existed = await stat(gitDir).then(
      () => true,
      () => false,
    );
    await rm(gitDir, { recursive: true, force: true });
    return existed;
  }

  async listChanges(session: HostSession): Promise<SessionChanges> {
    // A turn's end checkpoint is taken on the session's queue right after its `done`: what a client asks once
    // it saw the `done` must include it.
    await session.queue.drained();
    const turns = await this.#options.store.listTurns(session.id);
    const userTurns = turns.filter((turn) => turn.kind === 'user').map((turn) => turn.id);
    try {
      return await this.checkpointsOf(session.session).changes(userTurns, session.session.runningTurnId);
    } catch (error) {
      return noChanges(checkpointFailure(error));
    }
  }

  async filePatch(session: HostSession, query: FilePatchQuery): Promise<FilePatch> {
    const patch = await gitCall(() => this.checkpointsOf(session.session).patch(query));
    if (patch === undefined) throw new HostError('not_found', 'that file did not change between these checkpoints');
    return patch;
  }

  async rewind(session: HostSession, body: RewindBody): Promise<RewindResult> {
    const checkpoints = this.checkpointsOf(session.session);
    const turnId = body.turnId ?? null;
    const target =
      body.checkpointId ?? (await gitCall(() => checkpoints.turnStart(body.turnId!))) ?? notCheckpointed(body.turnId!);
    const dryRun = body.dryRun === true;
    if (dryRun) return gitCall(() => checkpoints.rewind(target, turnId, true));
    return session.whileIdle(() => gitCall(() => checkpoints.rewind(target, turnId, false)), filesRewound(turnId));
  }

  async revert(session: HostSession, body: RevertBody): Promise<RewindResult> {
    const checkpoints = this.checkpointsOf(session.session);
    if (body.dryRun === true) return gitCall(() => checkpoints.revert(body));
    return session.whileIdle(() => gitCall(() => checkpoints.revert(body)), filesRewound(null));
  }
}

/** A session's changes when none can be read: `error` says why. */
export function noChanges(error: string): SessionChanges {
  return { session: { from: null, to: null, files: [] }, turns: [], checkpoints: [], error };
}

function filesRewound(turnId: string | null): (result: RewindResult) => SessionCommand | undefined {
  return (result) =>
    result.safetyCheckpoint === null
      ? undefined
      : {
          type: 'filesRewound',
          turnId,
          target: result.target,
          safetyCheckpoint: result.safetyCheckpoint,
          files: result.files,
        };
}

function notCheckpointed(turnId: string): never {
  throw new HostError('not_found', `turn ${turnId} has no checkpoint to rewind to`);
}

/** Runs a git-backed call, its failures as the API's errors. */
async function gitCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HostError) throw error;
    if (error instanceof CheckpointConflictError) throw new HostError('conflict', error.message);
    // A well-formed id the shadow repository does not have is the caller's mistake, not git's failure.
    if (error instanceof UnknownCheckpointError) throw new HostError('not_found', 'no such checkpoint in this session');
    if (error instanceof GitError) throw new HostError('git_unavailable', error.message);
    if (error instanceof RangeError || error instanceof TypeError)
      throw new HostError('validation_failed', error.message);
    throw error;
  }
}
