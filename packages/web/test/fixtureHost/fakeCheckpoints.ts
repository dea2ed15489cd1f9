import { createHash } from 'node:crypto';
import {
  type Checkpoint,
  type CheckpointKind,
  type FilePatch,
  type RevertBody,
  type RewindResult,
  type SessionChanges,
  type TurnChanges,
  WORKING_TREE,
} from '@outrigger/host-api';
import { diffTrees, patchOf, type Tree, withHunkUndone } from './fakeFiles.ts';
import { HttpError } from './httpError.ts';

let commits = 0;

/** A fresh 40-hex id, as a commit of the shadow repository would have. */
export function fakeCommitId(): string {
  commits += 1;
  return createHash('sha1').update(`fixture commit ${commits}`).digest('hex');
}

/**
 * One session's checkpoints, as the host keeps them in its shadow repository: a snapshot of the working
 * directory at each user turn's start and end, and a safety one before each rewind or revert. The directory
 * (`files`) is shared with every session in the same folder and changed in place.
 */
export class FakeCheckpoints {
  readonly files: Tree;
  /** Set for a machine without git: every checkpoint fails, and the changes cannot be listed. */
  readonly gitMissing: boolean;
  readonly #snapshots = new Map<string, { checkpoint: Checkpoint; tree: Tree }>();
  readonly #turns = new Map<string, { start: string; end?: string }>();

  constructor(files: Tree, options: { gitMissing?: boolean } = {}) {
    this.files = files;
    this.gitMissing = options.gitMissing === true;
  }

  /** The start of a user turn; throws (as git would) on a machine without it. */
  turnStart(turnId: string): Checkpoint {
    const checkpoint = this.#snapshot('turn_start', turnId);
    this.#turns.set(turnId, { start: checkpoint.id });
    return checkpoint;
  }

  /** The end of a turn whose start was taken, with how many files the turn changed. */
  turnEnd(turnId: string): { checkpoint: Checkpoint; filesChanged: number } | undefined {
    const edges = this.#turns.get(turnId);
    if (edges === undefined) return undefined;
    const checkpoint = this.#snapshot('turn_end', turnId);
    edges.end = checkpoint.id;
    return { checkpoint, filesChanged: diffTrees(this.#tree(edges.start), this.#tree(checkpoint.id)).length };
  }

  changes(userTurnIds: readonly string[], runningTurnId: string | null): SessionChanges {
    if (this.gitMissing)
      return { session: { from: null, to: null, files: [] }, turns: [], checkpoints: [], error: gitMissingMessage };
    const turns: TurnChanges[] = [];
    for (const turnId of userTurnIds) {
      const edges = this.#turns.get(turnId);
      if (edges === undefined) continue;
      const to = edges.end ?? (turnId === runningTurnId ? WORKING_TREE : undefined);
      if (to === undefined) {
        turns.push({ turnId, from: edges.start, to: null, files: [], error: 'the turn ended without a checkpoint' });
        continue;
      }
      turns.push({
        turnId,
        from: edges.start,
        to,
        files: diffTrees(this.#tree(edges.start), this.#tree(to)),
        error: null,
      });
    }
    const first = userTurnIds.map((turnId) => this.#turns.get(turnId)?.start).find((id) => id !== undefined);
    return {
      session:
        first === undefined
          ? { from: null, to: null, files: [] }
          : { from: first, to: WORKING_TREE, files: diffTrees(this.#tree(first), this.files) },
      turns,
      checkpoints: [...this.#snapshots.values()].map((snapshot) => snapshot.checkpoint),
      error: null,
    };
  }

  patch(from: string, to: string, path: string): FilePatch {
    const patch = patchOf(this.#tree(from), this.#tree(to), path);
    if (patch === undefined) throw new HttpError('not_found', 'that file did not change between these checkpoints');
    return patch;
  }

  /** The directory back to before `turnId` (its start), or to any checkpoint. */
  rewind(target: { turnId?: string; checkpointId?: string }, dryRun: boolean): RewindResult {
    const turnId = target.turnId ?? null;
    const to =
      target.checkpointId ??
      this.#turns.get(turnId ?? '')?.start ??
      notFound(`turn ${turnId} has no checkpoint to rewind to`);
    const goal = this.#tree(to);
    const files = diffTrees(this.files, goal);
    if (dryRun) return { dryRun, target: to, files, safetyCheckpoint: null };
    const safetyCheckpoint = this.#snapshot('safety', turnId);
    this.#replaceFiles(goal);
    return { dryRun, target: to, files, safetyCheckpoint };
  }

  /** One file back to `from`, or hunk `hunk` of its `from` → `to` diff undone in the directory. */
  revert(body: RevertBody): RewindResult {
    const { from, to, path, hunk } = body;
    const before = this.#tree(from);
    const after = this.#tree(to);
    const file = diffTrees(before, after).find((candidate) => candidate.path === path || candidate.oldPath === path);
    if (file === undefined) throw new HttpError('not_found', 'that file did not change between these checkpoints');
    const next: Tree = new Map(this.files);
    if (hunk === undefined) {
      next.delete(file.path);
      const original = before.get(file.oldPath ?? file.path);
      if (original !== undefined) next.set(file.oldPath ?? file.path, original);
    } else {
      const current = this.files.get(file.path);
      if (file.binary || current === undefined) throw new HttpError('conflict', 'that hunk is no longer in the file');
      const undone = withHunkUndone(
        before.get(file.oldPath ?? file.path)?.text ?? '',
        after.get(file.path)?.text ?? '',
        current.text,
        hunk,
      );
      if (undone === undefined)
        throw new HttpError('conflict', 'that hunk no longer applies: the file changed since this diff');
      next.set(file.path, { ...current, text: undone });
    }
    const files = diffTrees(this.files, next);
    if (body.dryRun === true) return { dryRun: true, target: from, files, safetyCheckpoint: null };
    const safetyCheckpoint = this.#snapshot('safety', null);
    this.#replaceFiles(next);
    return { dryRun: false, target: from, files, safetyCheckpoint };
  }

  #snapshot(kind: CheckpointKind, turnId: string | null): Checkpoint {
    if (this.gitMissing) throw new HttpError('git_unavailable', gitMissingMessage);
    const checkpoint: Checkpoint = { id: fakeCommitId(), kind, turnId, createdAt: Date.now() };
    this.#snapshots.set(checkpoint.id, { checkpoint, tree: new Map(this.files) });
    return checkpoint;
  }

  #tree(id: string): Tree {
    if (id === WORKING_TREE) return this.files;
    const snapshot = this.#snapshots.get(id);
    if (snapshot === undefined) throw new HttpError('not_found', 'no such checkpoint in this session');
    return snapshot.tree;
  }

  #replaceFiles(next: Tree): void {
    const copy = new Map(next);
    this.files.clear();
    for (const [path, file] of copy) this.files.set(path, file);
  }
}

const gitMissingMessage = 'git is not installed on this machine, so no checkpoints are taken';

function notFound(message: string): never {
  throw new HttpError('not_found', message);
}
