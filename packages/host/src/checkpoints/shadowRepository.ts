import { chmod, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { devNull } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { FILE_CHANGES_ARGS, type FileChange, parseFileChanges } from '../git/fileChanges.ts';
import { GitError, type GitOutput, runGit } from '../git/runGit.ts';
import {
  CHECKPOINT_REF_ROOT,
  checkedCommit,
  checkedHunkIndex,
  checkedPath,
  checkedRefNamespace,
  checkedRefPrefix,
  checkedState,
  WORKING,
} from './checkpointArguments.ts';
import { type DiffHunk, hunkPatch, parseHunks } from './unifiedDiff.ts';

export { WORKING } from './checkpointArguments.ts';

/** A snapshot of the work tree, named by a ref of the shadow repository. */
export interface Checkpoint {
  readonly ref: string;
  readonly commit: string;
  /** When the commit's tree was first recorded (ms since the epoch). */
  readonly createdAt: number;
  /** False when the tree was the latest snapshot's: its commit is reused and git wrote no object. */
  readonly created: boolean;
}

/** One file's change between two states, and its unified diff. */
export interface FilePatch {
  readonly file: FileChange;
  /** The unified diff of that file alone; empty for a binary file. */
  readonly patch: string;
  readonly hunks: DiffHunk[];
}

/** What a rewind or a revert did: the snapshot taken before it (restoring it undoes the change), and the files it changed. */
export interface Rewound {
  readonly safety: Checkpoint;
  readonly files: FileChange[];
}

/** A hunk that no longer applies: the file changed since the diff it came from. Nothing was changed. */
export class CheckpointConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointConflictError';
  }
}

/** A well-formed commit id that names no snapshot of this repository. */
export class UnknownCheckpointError extends RangeError {
  readonly commit: string;

  constructor(commit: string) {
    super(`no checkpoint ${commit} in this shadow repository`);
    this.name = 'UnknownCheckpointError';
    this.commit = commit;
  }
}

/** The last snapshot's commit, which the next one compares with; outside the callers' namespace, so never listed. */
const LATEST_REF = 'refs/shadow/latest';
const SNAPSHOT_SUBJECT = 'snapshot ';
/** The scratch index a partial restore composes its tree in (the shadow index must keep matching the work tree). */
const COMPOSE_INDEX = 'compose-index';
const REGULAR_FILE_MODES: ReadonlySet<string> = new Set(['100644', '100755']);
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Outrigger',
  GIT_AUTHOR_EMAIL: 'checkpoints@outrigger.invalid',
  GIT_COMMITTER_NAME: 'Outrigger',
  GIT_COMMITTER_EMAIL: 'checkpoints@outrigger.invalid',
};
/**
 * Settings every call runs with, passed as command-line configuration (`GIT_CONFIG_COUNT`) so they hold
 * whatever the shadow's config file says and whatever git defaults to where the host runs.
 */
const CALL_CONFIG: readonly (readonly [key: string, value: string])[] = [
  // Bytes go in and come back out unchanged; the executable bit and symlinks are part of a snapshot.
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.fileMode', 'true'],
  ['core.symlinks', 'true'],
  // Nothing of the user's setup runs or answers for git: no daemon, no cache that could go stale.
  ['core.fsmonitor', 'false'],
  ['core.untrackedCache', 'false'],
  // Only the directory's own .gitignore files decide what is ignored, so a snapshot does not depend on the host's user.
  ['core.excludesFile', devNull],
  ['core.logAllRefUpdates', 'false'],
  // Never repack or prune in the middle of a turn.
  ['gc.auto', '0'],
  ['advice.addEmbeddedRepo', 'false'],
];
const CONFIG_ENV: Readonly<Record<string, string>> = Object.fromEntries([
  ['GIT_CONFIG_COUNT', String(CALL_CONFIG.length)],
  ...CALL_CONFIG.flatMap(([key, value], i) => [
    [`GIT_CONFIG_KEY_${i}`, key],
    [`GIT_CONFIG_VALUE_${i}`, value],
  ]),
]);
/** `info/attributes` outranks every .gitattributes: no conversion between file and object, so a restore gives the bytes back. */
const ATTRIBUTES = '* -text -eol -ident -filter -working-tree-encoding\n';

/** One path that differs between two trees, with what the second tree holds there. */
interface TreeEntryChange {
  /** Decoded as latin1: the path's bytes exactly, whatever their encoding. */
  readonly path: string;
  readonly mode: string;
  readonly object: string;
}

/** A switch of the work tree from one tree to another: the tree to switch to, and what it changes. */
interface SwitchPlan {
  readonly tree: string;
  readonly files: FileChange[];
  /** Every difference is taken: the tree is the target's. */
  readonly complete: boolean;
}

/**
 * Snapshots of a directory in a git repository of its own: the git dir in the host's data directory, the
 * directory as its work tree, its own index. The user's `.git`, index and stash are never read or written
 * (git never adds a path named `.git`), a directory that is no repository works the same, and the
 * directory's `.gitignore` files decide what is kept. A nested repository with a commit is kept as a
 * gitlink (its commit id, not its files); one without a commit, and a file git cannot read, are left out.
 *
 * One instance's operations run one at a time: they share the shadow index.
 */
export class ShadowRepository {
  readonly #gitDir: string;
  readonly #workTree: string;
  readonly #timeoutMs: number | undefined;
  readonly #env: Readonly<Record<string, string>>;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(gitDir: string, workTree: string, timeoutMs: number | undefined) {
    this.#gitDir = gitDir;
    this.#workTree = workTree;
    this.#timeoutMs = timeoutMs;
    this.#env = {
      ...CONFIG_ENV,
      ...IDENTITY,
      GIT_DIR: gitDir,
      GIT_WORK_TREE: workTree,
      GIT_INDEX_FILE: join(gitDir, 'index'),
      GIT_LITERAL_PATHSPECS: '1',
    };
  }

  /** Opens the shadow repository at `gitDir` for `workTree`, creating it (0700, its files 0600) when missing. */
  static async open(options: { gitDir: string; workTree: string; timeoutMs?: number }): Promise<ShadowRepository> {
    const gitDir = resolve(options.gitDir);
    const repository = new ShadowRepository(gitDir, resolve(options.workTree), options.timeoutMs);
    if (!(await exists(join(gitDir, 'HEAD')))) await repository.#create();
    await repository.#writeInfoFiles();
    return repository;
  }

  /** Records the work tree under `ref` (under `refs/outrigger/`); an unchanged tree reuses the latest commit. */
  snapshot(ref: string): Promise<Checkpoint> {
    return this.#serialized(async () => this.#snapshot(await this.#checkedRef(ref)));
  }

  /** The commit `ref` names; undefined when there is no such ref. */
  commitOf(ref: string): Promise<string | undefined> {
    return this.#serialized(async () => {
      const output = await this.#git(['rev-parse', '--verify', '--quiet', await this.#checkedRef(ref)], {
        okExitCodes: [1],
      });
      return output.exitCode === 0 ? firstLine(output) : undefined;
    });
  }

  /** The snapshots named by refs under `prefix`, oldest first. */
  list(prefix = CHECKPOINT_REF_ROOT): Promise<Checkpoint[]> {
    return this.#serialized(async () => {
      const records = await this.#snapshotRecords(checkedRefPrefix(prefix));
      return records
        .sort((a, b) => a.createdAt - b.createdAt)
        .map(({ ref, commit, createdAt }) => ({ ref, commit, createdAt, created: true }));
    });
  }

  /** What changed from `from` to `to`; either may be `working`, the work tree as it is now (no ref moves). */
  diff(from: string, to: string): Promise<FileChange[]> {
    return this.#serialized(async () => {
      const [left, right] = await this.#treeishes([from, to]);
      return this.#changes(left!, right!);
    });
  }

  /** One file's change and unified diff, found by its path on either side of a rename; undefined when it did not change. */
  filePatch(from: string, to: string, path: string): Promise<FilePatch | undefined> {
    return this.#serialized(async () => {
      const file = checkedPath(path);
      const [left, right] = await this.#treeishes([from, to]);
      return this.#filePatch(left!, right!, file, 'utf8');
    });
  }

  /** What `restore(target)` would change, changing nothing the user can see (it only writes objects). */
  restorePlan(target: string): Promise<FileChange[]> {
    return this.#serialized(async () => {
      const commit = checkedCommit(target);
      await this.#requireCheckpoints([commit]);
      return (await this.#planSwitch(await this.#writeWorkingTree(), commit)).files;
    });
  }

  /**
   * Makes the work tree equal to `target` for every path git does not ignore now, after a snapshot under
   * `safetyRef` (restoring that one undoes this). Ignored files are never touched, even where `target` has one.
   */
  restore(target: string, safetyRef: string): Promise<Rewound> {
    return this.#serialized(async () => {
      const commit = checkedCommit(target);
      await this.#requireCheckpoints([commit]);
      const safety = await this.#snapshot(await this.#checkedRef(safetyRef));
      return { safety, files: await this.#switchTo(safety.commit, commit) };
    });
  }

  /** One file back to its state in `target` (deleted if absent there; a rename undone), after a safety snapshot. */
  revertFile(target: string, path: string, safetyRef: string): Promise<Rewound> {
    return this.#serialized(async () => {
      const file = checkedPath(path);
      const commit = checkedCommit(target);
      await this.#requireCheckpoints([commit]);
      const safety = await this.#snapshot(await this.#checkedRef(safetyRef));
      const paths = await this.#pathsOfChange(safety.commit, commit, file);
      return { safety, files: await this.#switchTo(safety.commit, commit, paths) };
    });
  }

  /**
   * Undoes hunk `hunkIndex` of the `from` → `to` diff of `path` in the work tree, after a safety snapshot.
   * A hunk that no longer applies is a `CheckpointConflictError`, and nothing is changed (no safety either).
   */
  revertHunk(from: string, to: string, path: string, hunkIndex: number, safetyRef: string): Promise<Rewound> {
    return this.#serialized(async () => {
      const file = checkedPath(path);
      const index = checkedHunkIndex(hunkIndex);
      const safetyName = await this.#checkedRef(safetyRef);
      const [left, right] = await this.#treeishes([checkedCommit(from), to]);
      const reverse = await this.#hunkToUndo(left!, right!, file, index);
      await this.#applyReversed(reverse, file, ['--check']);
      const safety = await this.#snapshot(safetyName);
      await this.#applyReversed(reverse, file, []);
      return { safety, files: await this.#changes(safety.commit, await this.#writeWorkingTree()) };
    });
  }

  // The operations below run inside #serialized, or (#create, #writeInfoFiles) before the instance is handed out.

  async #create(): Promise<void> {
    await mkdir(this.#gitDir, { recursive: true, mode: 0o700 });
    // `--shared=0600` has git give every file it writes 0600 (0400 for objects) and every directory 0700, whatever the umask.
    const init = ['init', '--bare', '--quiet', '--shared=0600', '--template=', '--initial-branch=snapshots'];
    const outside = { cwd: dirname(this.#gitDir), timeoutMs: this.#timeoutMs };
    await runGit([...init, this.#gitDir], outside);
    // Made bare so that no work tree is written into its config; every call names the work tree itself.
    await runGit(['config', 'core.bare', 'false'], { ...outside, env: { GIT_DIR: this.#gitDir } });
  }

  async #writeInfoFiles(): Promise<void> {
    const info = join(this.#gitDir, 'info');
    await mkdir(info, { recursive: true, mode: 0o700 });
    await writePrivateFile(join(info, 'attributes'), ATTRIBUTES);
    await writePrivateFile(join(info, 'exclude'), this.#selfExclusion());
  }

  /** When the data directory is inside the work tree (a session in `~`), the shadow repository must not snapshot itself. */
  #selfExclusion(): string {
    const inside = relative(this.#workTree, this.#gitDir);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return '';
    return `/${inside.split('/').map(escapeIgnorePattern).join('/')}/\n`;
  }

  async #snapshot(ref: string): Promise<Checkpoint> {
    const tree = await this.#writeWorkingTree();
    const [latest] = await this.#snapshotRecords(LATEST_REF);
    if (latest !== undefined && latest.tree === tree) {
      await this.#updateRefs([[ref, latest.commit]]);
      return { ref, commit: latest.commit, createdAt: latest.createdAt, created: false };
    }
    const createdAt = Date.now();
    const commit = await this.#commitTree(tree, latest?.commit, createdAt);
    await this.#updateRefs([
      [ref, commit],
      [LATEST_REF, commit],
    ]);
    return { ref, commit, createdAt, created: true };
  }

  /** The work tree as it is now, written as a tree through the shadow index: objects only, no ref moves. */
  async #writeWorkingTree(): Promise<string> {
    // A file git cannot read, or a nested repository without a commit, is left out rather than failing the snapshot.
    await this.#git(['add', '--all', '--ignore-errors'], { okExitCodes: [1] });
    await this.#untrackIgnored();
    return firstLine(await this.#git(['write-tree']));
  }

  /** A path stays in an index once added, whatever .gitignore says later; a snapshot holds only what is not ignored now. */
  async #untrackIgnored(): Promise<void> {
    const ignored = await this.#git(['ls-files', '--cached', '--ignored', '--exclude-standard', '-z']);
    if (ignored.stdout.length === 0) return;
    await this.#git(['update-index', '--force-remove', '-z', '--stdin'], { input: ignored.stdout });
  }

  async #commitTree(tree: string, parent: string | undefined, createdAt: number): Promise<string> {
    const date = `@${Math.floor(createdAt / 1000)} +0000`;
    const subject = `${SNAPSHOT_SUBJECT}${new Date(createdAt).toISOString()}`;
    const parents = parent === undefined ? [] : ['-p', parent];
    const output = await this.#git(['commit-tree', ...parents, '-m', subject, tree], {
      env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
    return firstLine(output);
  }

  /** Moves refs in one transaction: all of them or none. */
  async #updateRefs(updates: readonly (readonly [ref: string, commit: string])[]): Promise<void> {
    const input = updates.map(([ref, commit]) => `update ${ref}\0${commit}\0\0`).join('');
    await this.#git(['update-ref', '--stdin', '-z'], { input });
  }

  /** The snapshots of the refs matching `pattern`, with their trees; a commit's time comes from its subject (git's dates have seconds). */
  async #snapshotRecords(pattern: string): Promise<(Omit<Checkpoint, 'created'> & { tree: string })[]> {
    const format = '%(objectname) %(tree) %(committerdate:unix) %(refname) %(contents:subject)';
    const output = await this.#git(['for-each-ref', `--format=${format}`, pattern]);
    return lines(output).map((line) => {
      const [commit = '', tree = '', seconds = '0', ref = '', ...subject] = line.split(' ');
      const recorded = Date.parse(subject.join(' ').slice(SNAPSHOT_SUBJECT.length));
      return { ref, commit, tree, createdAt: Number.isNaN(recorded) ? Number(seconds) * 1000 : recorded };
    });
  }

  async #checkedRef(ref: string): Promise<string> {
    const check = await this.#git(['check-ref-format', checkedRefNamespace(ref)], { okExitCodes: [1] });
    if (check.exitCode !== 0) throw new RangeError(`${JSON.stringify(ref)} is not a valid git ref name`);
    return ref;
  }

  /**
   * Refuses a commit this repository does not have (an `UnknownCheckpointError`) or cannot read (git says
   * why on stderr: a damaged repository).
   */
  async #requireCheckpoints(commits: readonly string[]): Promise<void> {
    if (commits.length === 0) return;
    const input = commits.map((commit) => `${commit}\n`).join('');
    const output = await this.#git(['cat-file', '--batch-check=%(objecttype)'], { input });
    const types = lines(output);
    const damage = output.stderr.split('\n').find((line) => line.trim() !== '');
    commits.forEach((commit, i) => {
      if (types[i] === 'commit') return;
      if (damage !== undefined) {
        throw new GitError('corrupt', `git cat-file failed: the repository is damaged (${damage})`, damage);
      }
      throw new UnknownCheckpointError(commit);
    });
  }

  /** Tree-ishes git can diff: each state checked, `working` written as a tree (once, however often it is named). */
  async #treeishes(states: readonly string[]): Promise<string[]> {
    const checked = states.map(checkedState);
    await this.#requireCheckpoints(checked.filter((state) => state !== WORKING));
    const working = checked.includes(WORKING) ? await this.#writeWorkingTree() : '';
    return checked.map((state) => (state === WORKING ? working : state));
  }

  async #changes(from: string, to: string): Promise<FileChange[]> {
    return parseFileChanges(await this.#git([...FILE_CHANGES_ARGS, from, to]));
  }

  async #filePatch(
    from: string,
    to: string,
    path: string,
    encoding: 'utf8' | 'latin1',
  ): Promise<FilePatch | undefined> {
    const file = (await this.#changes(from, to)).find((change) => change.path === path || change.oldPath === path);
    if (file === undefined) return undefined;
    if (file.binary) return { file, patch: '', hunks: [] };
    // Both names of a rename, so that git pairs them again when it diffs only these paths.
    const paths = file.oldPath === null ? [file.path] : [file.oldPath, file.path];
    const output = await this.#git(['diff-tree', '-r', '-p', '-M', '--no-commit-id', from, to, '--', ...paths]);
    const patch = output.stdout.toString(encoding);
    return { file, patch, hunks: parseHunks(patch) };
  }

  /** The one-hunk patch that undoes hunk `index`, as bytes (read as latin1, so a file in any encoding matches). */
  async #hunkToUndo(from: string, to: string, path: string, index: number): Promise<Buffer> {
    const patch = await this.#filePatch(from, to, path, 'latin1');
    if (patch === undefined) throw new RangeError(`${path} did not change between those two states`);
    if (patch.file.binary || !isRegularFile(patch.file)) {
      throw new RangeError(
        `${path} is binary, a symlink or a nested repository: it has no hunks; revert the whole file`,
      );
    }
    if (index >= patch.hunks.length) {
      throw new RangeError(`that diff of ${path} has ${patch.hunks.length} hunk(s); there is no hunk ${index}`);
    }
    return Buffer.from(hunkPatch(patch.patch, index), 'latin1');
  }

  /** `git apply -R` in the work tree only (no `--index`: the shadow index is not the user's either, but stays a snapshot's). */
  async #applyReversed(patch: Buffer, path: string, extra: readonly string[]): Promise<void> {
    const applied = await this.#git(['apply', '--reverse', '--whitespace=nowarn', ...extra], {
      input: patch,
      okExitCodes: [1],
    });
    if (applied.exitCode === 1) {
      throw new CheckpointConflictError(`the hunk no longer applies to ${path}: the file changed since that diff`);
    }
  }

  /** The paths of `path`'s change from `from` to `target`: both names of a rename, so undoing it restores the old one. */
  async #pathsOfChange(from: string, target: string, path: string): Promise<Set<string>> {
    const change = (await this.#changes(from, target)).find((file) => file.path === path || file.oldPath === path);
    const names = change === undefined ? [path] : [change.path, ...(change.oldPath === null ? [] : [change.oldPath])];
    return new Set(names.map(asBytes));
  }

  /**
   * Moves the work tree (whose index matches `from`, as right after a snapshot) to `target` for the paths in
   * `only` (default: all), leaving out what is ignored now; then points the latest ref at `target` if the
   * work tree now is exactly `target`, so the next snapshot reuses it. Returns what changed.
   */
  async #switchTo(from: string, target: string, only?: ReadonlySet<string>): Promise<FileChange[]> {
    const plan = await this.#planSwitch(from, target, only);
    // A two-tree `read-tree -m -u` writes, deletes and chmods only the paths that differ, removes directories a
    // deletion empties, and refuses (changing nothing) if a file changed since the snapshot or an untracked file is in the way.
    if (plan.files.length > 0) await this.#git(['read-tree', '-m', '-u', from, plan.tree]);
    if (plan.complete) await this.#updateRefs([[LATEST_REF, target]]);
    return plan.files;
  }

  async #planSwitch(from: string, target: string, only?: ReadonlySet<string>): Promise<SwitchPlan> {
    const entries = await this.#entryChanges(from, target);
    const wanted = only === undefined ? entries : entries.filter((entry) => only.has(entry.path));
    const ignored = await this.#ignoredNow(wanted.map((entry) => entry.path));
    const chosen = wanted.filter((entry) => !ignored.has(entry.path));
    const complete = chosen.length === entries.length;
    if (chosen.length === 0) return { tree: from, files: [], complete };
    const tree = complete ? target : await this.#composeTree(from, chosen);
    return { tree, files: await this.#changes(from, tree), complete };
  }

  /** Every path that differs from `from` to `to` (no rename pairing: each side of a rename is its own path). */
  async #entryChanges(from: string, to: string): Promise<TreeEntryChange[]> {
    const output = await this.#git(['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', from, to]);
    const fields = output.stdout.toString('latin1').split('\0');
    const entries: TreeEntryChange[] = [];
    for (let at = 0; at + 1 < fields.length; at += 2) {
      // `:oldMode newMode oldObject newObject status`, then the path.
      const [, mode = '', , object = ''] = fields[at]!.slice(1).split(' ');
      entries.push({ path: fields[at + 1]!, mode, object });
    }
    return entries;
  }

  /** The paths git ignores in the work tree now, by its rules alone (`--no-index`: being in a snapshot does not exempt one). */
  async #ignoredNow(paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    // check-ignore refuses literal pathspecs; a `./` in front keeps a name like `:(top)x` from reading as magic.
    const output = await this.#git(['check-ignore', '--no-index', '-z', '--stdin'], {
      input: Buffer.from(nulTerminated(paths.map((path) => `./${path}`)), 'latin1'),
      okExitCodes: [1],
      env: { GIT_LITERAL_PATHSPECS: '0' },
    });
    const echoed = output.stdout.toString('latin1').split('\0');
    return new Set(echoed.filter((path) => path !== '').map((path) => path.slice('./'.length)));
  }

  /** `base` with `changes` applied, written as a tree through the scratch index. */
  async #composeTree(base: string, changes: readonly TreeEntryChange[]): Promise<string> {
    const index = join(this.#gitDir, COMPOSE_INDEX);
    const env = { GIT_INDEX_FILE: index };
    // A path absent from the target comes as mode 000000, which removes it from the index.
    const info = changes.map((entry) => `${entry.mode} ${entry.object}\t${entry.path}`);
    try {
      await this.#git(['read-tree', base], { env });
      await this.#git(['update-index', '-z', '--index-info'], {
        env,
        input: Buffer.from(nulTerminated(info), 'latin1'),
      });
      return firstLine(await this.#git(['write-tree'], { env }));
    } finally {
      await rm(index, { force: true });
    }
  }

  #git(
    args: readonly string[],
    options: { input?: string | Buffer; okExitCodes?: readonly number[]; env?: Record<string, string> } = {},
  ): Promise<GitOutput> {
    return runGit(args, {
      cwd: this.#workTree,
      env: { ...this.#env, ...options.env },
      input: options.input,
      okExitCodes: options.okExitCodes,
      timeoutMs: this.#timeoutMs,
    });
  }

  /** Runs `work` after every operation queued before it, whether those succeeded or failed. */
  #serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(work);
    this.#queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

function isRegularFile(file: FileChange): boolean {
  return [file.oldMode, file.newMode].every((mode) => mode === null || REGULAR_FILE_MODES.has(mode));
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Written with mode 0600, and made 0600 if it existed with another. */
async function writePrivateFile(path: string, content: string): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  await chmod(path, 0o600);
}

/** A path segment as a literal .gitignore pattern. */
function escapeIgnorePattern(segment: string): string {
  return segment.replace(/[\\*?[\]!# ]/g, (character) => `\\${character}`);
}

/** A path as git's bytes in latin1, the form of `TreeEntryChange.path`. */
function asBytes(path: string): string {
  return Buffer.from(path, 'utf8').toString('latin1');
}

function nulTerminated(items: readonly string[]): string {
  return items.map((item) => `${item}\0`).join('');
}

function firstLine(output: GitOutput): string {
  return output.stdout.toString('utf8').split('\n')[0]!.trim();
}

function lines(output: GitOutput): string[] {
  return output.stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '');
}
