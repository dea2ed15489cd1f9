import type {
  ChangedFile,
  Checkpoint,
  CheckpointKind,
  FilePatch,
  FilePatchQuery,
  RevertBody,
  RewindResult,
  SessionChanges,
  TurnChanges,
} from '@outrigger/host-api';
import { hostLimits, WORKING_TREE } from '@outrigger/host-api';
import { GitError } from '../git/runGit.ts';
import type { ShadowRepository, Checkpoint as Snapshot } from './shadowRepository.ts';

/** Where in the shadow repository each checkpoint is named; listing the refs lists the checkpoints. */
const REF_ROOT = 'refs/outrigger';
const TURN_REF = /^refs\/outrigger\/turns\/([^/]+)\/(start|end)$/;
const SAFETY_REF = /^refs\/outrigger\/safety\/(\d+)-(\d+)(?:\/([^/]+))?$/;
/** Host turn ids are UUIDs; anything else could not be a ref name component. */
const REF_SAFE_ID = /^[A-Za-z0-9-]{1,100}$/;

export type TurnEdge = 'start' | 'end';

/** One recorded checkpoint, and (for a turn's end) how many files its turn changed. */
export interface RecordedCheckpoint {
  readonly checkpoint: Checkpoint;
  readonly filesChanged: number | null;
}

/**
 * One session's checkpoints in its shadow repository: a snapshot at each turn's start and end, the diffs
 * between them, and the rewinds and reverts they make possible (each after a safety snapshot, so it can be
 * undone). The repository is opened on first use: a session whose turns never ran costs nothing.
 */
export class SessionCheckpoints {
  readonly #open: () => Promise<ShadowRepository>;
  #repository: Promise<ShadowRepository> | undefined;
  /** Diffs between two commits never change: a session's changes are read on every checkpoint, each once. */
  readonly #diffs = new Map<string, ChangedFile[]>();
  #safetyCount = 0;

  constructor(open: () => Promise<ShadowRepository>) {
    this.#open = open;
  }

  /** A snapshot at a turn's start or end; a turn's end is skipped (undefined) when its start was never taken. */
  async record(turnId: string, edge: TurnEdge): Promise<RecordedCheckpoint | undefined> {
    const repository = await this.#repo();
    if (edge === 'end') {
      const start = await repository.commitOf(turnRef(turnId, 'start'));
      if (start === undefined) return undefined;
      const snapshot = await repository.snapshot(turnRef(turnId, 'end'));
      const files = await this.#diff(repository, start, snapshot.commit);
      return { checkpoint: checkpointOf(snapshot, 'turn_end', turnId), filesChanged: files.length };
    }
    const snapshot = await repository.snapshot(turnRef(turnId, 'start'));
    return { checkpoint: checkpointOf(snapshot, 'turn_start', turnId), filesChanged: null };
  }

  /**
   * Every listed turn's changes (start → end, or → `working` while it runs), and the session's since its first.
   * The session's diff ends where the session's own work ended: at its last turn's end checkpoint while no turn
   * runs, so edits another session or the user made later in a shared directory are not counted as this
   * session's. It ends at `working` while a turn runs, and after a rewind or revert (the directory as that left it).
   */
  async changes(turnIds: readonly string[], runningTurnId: string | null): Promise<SessionChanges> {
    const repository = await this.#repo();
    const checkpoints = (await repository.list()).flatMap((snapshot) => {
      const checkpoint = checkpointFromRef(snapshot);
      return checkpoint === undefined ? [] : [checkpoint];
    });
    const edges = new Map<string, { start?: string; end?: string }>();
    for (const checkpoint of checkpoints) {
      if (checkpoint.turnId === null || checkpoint.kind === 'safety') continue;
      const edge = edges.get(checkpoint.turnId) ?? {};
      edge[checkpoint.kind === 'turn_start' ? 'start' : 'end'] = checkpoint.id;
      edges.set(checkpoint.turnId, edge);
    }
    const turns: TurnChanges[] = [];
    let checkpointed = false;
    for (const turnId of turnIds) {
      const edge = edges.get(turnId);
      if (edge?.start === undefined) {
        // Turns before the session's first checkpoint predate checkpoints (or git); a later one lost its start.
        if (checkpointed) turns.push(unrecorded(turnId, 'no checkpoint was taken when the turn started'));
        continue;
      }
      checkpointed = true;
      const to = edge.end ?? (turnId === runningTurnId ? WORKING_TREE : undefined);
      if (to === undefined) {
        turns.push({ ...unrecorded(turnId, 'the turn ended without a checkpoint'), from: edge.start });
        continue;
      }
      turns.push({ turnId, from: edge.start, to, files: await this.#diff(repository, edge.start, to), error: null });
    }
    const first = turnIds.map((turnId) => edges.get(turnId)?.start).find((commit) => commit !== undefined);
    if (first === undefined) return { session: { from: null, to: null, files: [] }, turns, checkpoints, error: null };
    const to = runningTurnId === null ? lastOwnState(checkpoints, new Set(turnIds)) : WORKING_TREE;
    return {
      session: { from: first, to, files: await this.#diff(repository, first, to) },
      turns,
      checkpoints,
      error: null,
    };
  }

  async patch(query: FilePatchQuery): Promise<FilePatch | undefined> {
    const patch = await (await this.#repo()).filePatch(query.from, query.to, query.path);
    if (patch === undefined || patch.patch.length <= hostLimits.maxPatchChars) {
      return patch === undefined ? undefined : { ...patch, truncated: false };
    }
    let kept = 0;
    const hunks = patch.hunks.filter((hunk) => {
      kept += hunk.lines.join('\n').length + hunk.header.length;
      return kept <= hostLimits.maxPatchChars;
    });
    return { ...patch, patch: patch.patch.slice(0, hostLimits.maxPatchChars), hunks, truncated: true };
  }

  /** The commit a turn started from (its `turn_start`); undefined when the turn has none. */
  async turnStart(turnId: string): Promise<string | undefined> {
    return (await this.#repo()).commitOf(turnRef(turnId, 'start'));
  }

  /** The directory back to `target` (after a safety snapshot), or with `dryRun` only what that would change. */
  async rewind(target: string, turnId: string | null, dryRun: boolean): Promise<RewindResult> {
    const repository = await this.#repo();
    if (dryRun) return { dryRun, target, files: await repository.restorePlan(target), safetyCheckpoint: null };
    const done = await repository.restore(target, this.#safetyRef(turnId));
    return { dryRun, target, files: done.files, safetyCheckpoint: checkpointOf(done.safety, 'safety', turnId) };
  }

  /** One file of a diff back to its `from` state, or one hunk of it undone (`hunk`). */
  async revert(body: RevertBody): Promise<RewindResult> {
    const repository = await this.#repo();
    const { from, to, path, hunk } = body;
    if (body.dryRun === true) {
      const plan = await repository.diff(to, from);
      const files = plan.filter((file: ChangedFile) => file.path === path || file.oldPath === path);
      return { dryRun: true, target: from, files, safetyCheckpoint: null };
    }
    const done =
      hunk === undefined
        ? await repository.revertFile(from, path, this.#safetyRef(null))
        : await repository.revertHunk(from, to, path, hunk, this.#safetyRef(null));
    return {
      dryRun: false,
      target: from,
      files: done.files,
      safetyCheckpoint: checkpointOf(done.safety, 'safety', null),
    };
  }

  async #diff(repository: ShadowRepository, from: string, to: string): Promise<ChangedFile[]> {
    if (from === to) return [];
    if (to === WORKING_TREE) return repository.diff(from, to);
    const key = `${from}..${to}`;
    let files = this.#diffs.get(key);
    if (files === undefined) {
      files = await repository.diff(from, to);
      this.#diffs.set(key, files);
    }
    return files;
  }

  #repo(): Promise<ShadowRepository> {
    this.#repository ??= this.#open().catch((error: unknown) => {
      // A failed open (git missing) is tried again next time: git may have been installed meanwhile.
      this.#repository = undefined;
      throw error;
    });
    return this.#repository;
  }

  #safetyRef(turnId: string | null): string {
    this.#safetyCount += 1;
    const base = `${REF_ROOT}/safety/${Date.now()}-${this.#safetyCount}`;
    return turnId === null ? base : `${base}/${refSafe(turnId)}`;
  }
}

function unrecorded(turnId: string, error: string): TurnChanges {
  return { turnId, from: null, to: null, files: [], error };
}

/**
 * Where the session's own work left the directory: its newest turn end, or `working` when a rewind or revert
 * came after it (the directory is what that made it) or no turn has ended yet.
 */
function lastOwnState(checkpoints: readonly Checkpoint[], turnIds: ReadonlySet<string>): string {
  let last: Checkpoint | undefined;
  for (const checkpoint of checkpoints) {
    const own = checkpoint.kind === 'safety' || (checkpoint.kind === 'turn_end' && turnIds.has(checkpoint.turnId!));
    if (own && (last === undefined || checkpoint.createdAt >= last.createdAt)) last = checkpoint;
  }
  return last?.kind === 'turn_end' ? last.id : WORKING_TREE;
}

function turnRef(turnId: string, edge: TurnEdge): string {
  return `${REF_ROOT}/turns/${refSafe(turnId)}/${edge}`;
}

function refSafe(id: string): string {
  if (!REF_SAFE_ID.test(id)) throw new RangeError('a turn id that cannot name a checkpoint');
  return id;
}

function checkpointOf(snapshot: Snapshot, kind: CheckpointKind, turnId: string | null): Checkpoint {
  return { id: snapshot.commit, kind, turnId, createdAt: snapshot.createdAt };
}

function checkpointFromRef(snapshot: Snapshot): Checkpoint | undefined {
  const turn = TURN_REF.exec(snapshot.ref);
  if (turn !== null) return checkpointOf(snapshot, turn[2] === 'start' ? 'turn_start' : 'turn_end', turn[1]!);
  const safety = SAFETY_REF.exec(snapshot.ref);
  // A safety snapshot of an unchanged tree reuses the newest commit: when it was taken is in its ref's name.
  if (safety !== null) return { ...checkpointOf(snapshot, 'safety', safety[3] ?? null), createdAt: Number(safety[1]) };
  return undefined;
}

/** What a card says when git failed: its classified message (never a file's content). */
export function checkpointFailure(error: unknown): string {
  if (error instanceof GitError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
