import type { SessionWorktree, WorktreeActionBody, WorktreeActionResponse, WorktreeStatus } from '@outrigger/host-api';
import { GitError } from '../git/runGit.ts';
import { HostError } from '../hostError.ts';
import {
  createWorktree,
  mergeWorktree,
  removeWorktree,
  type WorktreeCheckout,
  WorktreeMergeRefused,
  worktreeChanges,
} from '../worktrees/worktree.ts';
import type { HostSession } from './hostSession.ts';

export interface SessionWorktreesOptions {
  /** Where the sessions' worktrees are made (`DATA/worktrees`). */
  readonly worktreesDir: string;
}

/**
 * Sessions in git worktrees of their own: made with the session, and merged into their base branch, kept as
 * a branch or discarded from the session's worktree routes (each refused while a turn runs, each recorded).
 */
export class SessionWorktrees {
  readonly #options: SessionWorktreesOptions;

  constructor(options: SessionWorktreesOptions) {
    this.#options = options;
  }

  /** A new worktree for a session about to start in `dir`; the session runs in `cwd`. */
  async create(dir: string, name: string): Promise<{ cwd: string; worktree: SessionWorktree }> {
    const made = await worktreeCall(() =>
      createWorktree({ dir, worktreesDir: this.#options.worktreesDir, slug: name }),
    ).catch((error: unknown) => {
      if (error instanceof HostError) throw error;
      // Not a repository, no commit yet: the directory the user chose cannot have a worktree.
      throw new HostError('validation_failed', `cannot make a worktree of ${dir}: ${(error as Error).message}`, [
        { path: 'worktree', message: (error as Error).message },
      ]);
    });
    return { cwd: made.sessionCwd, worktree: contractOf(made) };
  }

  /** Removes a worktree whose session could not be created (nothing else knows of it). */
  async forget(worktree: SessionWorktree): Promise<void> {
    await removeWorktree(checkoutOf(worktree), { deleteBranch: true });
  }

  async status(session: HostSession): Promise<WorktreeStatus> {
    const worktree = worktreeOf(session);
    if (worktree.state !== 'active') return { worktree, files: [], commitsAhead: 0, uncommitted: false };
    const changes = await worktreeCall(() => worktreeChanges(checkoutOf(worktree)));
    return { worktree, files: changes.files, commitsAhead: changes.commitsAhead, uncommitted: changes.uncommitted };
  }

  async act(session: HostSession, body: WorktreeActionBody): Promise<WorktreeActionResponse> {
    const worktree = worktreeOf(session);
    if (worktree.state !== 'active') {
      throw new HostError(
        'conflict',
        `the worktree was already ${worktree.state === 'kept' ? 'removed' : 'discarded'}`,
      );
    }
    if (body.action === 'merge') return this.#merge(session, worktree, body.fastForward ?? 'allow');
    const deleteBranch = body.action === 'discard';
    const changed: SessionWorktree = { ...worktree, state: deleteBranch ? 'discarded' : 'kept' };
    await session.whileIdle(
      () => worktreeCall(() => removeWorktree(checkoutOf(worktree), { deleteBranch })),
      () => ({ type: 'worktreeChanged', worktree: changed }),
    );
    // Its directory is gone: the session takes no more turns.
    await session.close();
    return { worktree: changed, fastForward: null };
  }

  async #merge(
    session: HostSession,
    worktree: SessionWorktree,
    fastForward: 'allow' | 'never',
  ): Promise<WorktreeActionResponse> {
    const title = session.session.title;
    const outcome = await session.whileIdle(
      () => worktreeCall(() => mergeWorktree(checkoutOf(worktree), { message: title, fastForward })),
      (result) =>
        result.outcome === 'merged'
          ? { type: 'worktreeChanged', worktree: { ...worktree, mergedCommit: result.commit } }
          : undefined,
    );
    switch (outcome.outcome) {
      case 'merged':
        return { worktree: { ...worktree, mergedCommit: outcome.commit }, fastForward: outcome.fastForward };
      case 'nothing_to_merge':
        return { worktree, fastForward: null };
      case 'conflict':
        throw new HostError(
          'conflict',
          `merging ${worktree.branch} into ${worktree.baseBranch ?? 'its base'} conflicts in ${outcome.files.length} file(s); nothing was changed`,
          outcome.files.map((path) => ({ path, message: 'changed on both sides' })),
        );
    }
  }
}

function worktreeOf(session: HostSession): SessionWorktree {
  const { worktree } = session.session;
  if (worktree === null) throw new HostError('not_found', 'the session has no worktree');
  return worktree;
}

function contractOf(made: WorktreeCheckout): SessionWorktree {
  const { repoRoot, path, branch, baseBranch, baseCommit } = made;
  return { repoRoot, path, branch, baseBranch, baseCommit, state: 'active', mergedCommit: null };
}

function checkoutOf(worktree: SessionWorktree): WorktreeCheckout {
  const { repoRoot, path, branch, baseBranch, baseCommit } = worktree;
  return { repoRoot, path, branch, baseBranch, baseCommit, sessionCwd: path };
}

/** Runs a worktree call, git's failures as the API's. */
async function worktreeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof WorktreeMergeRefused) throw new HostError('conflict', error.message);
    if (error instanceof GitError) throw new HostError('git_unavailable', error.message);
    throw error;
  }
}
