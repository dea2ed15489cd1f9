import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Checkpoint, ShadowRepository } from '../packages/host/src/checkpoints/shadowRepository.ts';
import { runGit } from '../packages/host/src/git/runGit.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { percentile, rounded, spread } from './stats.ts';

/*
 * The snapshot a turn takes at its start and its end, in the session's shadow repository: for trees of 1k,
 * 10k and 50k small text files in 100 directories (10 × 10), the first snapshot (every file hashed), then
 * ROUNDS rounds of a snapshot after one file changed and a snapshot with nothing changed. The unchanged
 * snapshot must reuse the latest commit and write no object at all; the objects figure counts what it wrote.
 */

const TREE_SIZES = [1_000, 10_000, 50_000] as const;
const FANOUT = 10;
const ROUNDS = 12;
/** Files written at once while the tree is made: enough to keep the disk busy, few enough for the fd limit. */
const WRITE_BATCH = 256;

interface TreeTimings {
  files: number;
  openMs: number;
  firstMs: number;
  oneChangeMs: number[];
  noChangeMs: number[];
  /** Objects the unchanged snapshots wrote, over all rounds. */
  objectsWrittenUnchanged: number;
}

export async function measureCheckpointSnapshots(): Promise<Figure[]> {
  const figures: Figure[] = [];
  let objectsWrittenUnchanged = 0;
  for (const files of TREE_SIZES) {
    const timings = await measureTree(files);
    objectsWrittenUnchanged += timings.objectsWrittenUnchanged;
    figures.push(...treeFigures(timings));
  }
  figures.push(
    measuredFigure({
      id: 'checkpoint_snapshot_no_change_objects',
      title: `git objects written by ${ROUNDS * TREE_SIZES.length} snapshots of an unchanged tree`,
      value: objectsWrittenUnchanged,
      unit: 'objects',
      target: { comparison: '<=', value: 0 },
      details: { rounds: ROUNDS, treeSizes: TREE_SIZES },
    }),
  );
  return figures;
}

function treeFigures(timings: TreeTimings): Figure[] {
  const size = `${timings.files / 1000}k`;
  const tree = { files: timings.files, directories: FANOUT * FANOUT };
  return [
    measuredFigure({
      id: `checkpoint_snapshot_first_${size}_ms`,
      title: `first checkpoint snapshot of ${size} files`,
      value: rounded(timings.firstMs, 1),
      unit: 'ms',
      target: null,
      details: { ...tree, openMs: rounded(timings.openMs, 1) },
    }),
    measuredFigure({
      id: `checkpoint_snapshot_one_change_${size}_ms`,
      title: `checkpoint snapshot of ${size} files, one changed (median of ${ROUNDS})`,
      value: rounded(percentile(timings.oneChangeMs, 50), 1),
      unit: 'ms',
      target: timings.files === 10_000 ? { comparison: '<', value: 1_000 } : null,
      details: { ...tree, ...roundSpread(timings.oneChangeMs) },
    }),
    measuredFigure({
      id: `checkpoint_snapshot_no_change_${size}_ms`,
      title: `checkpoint snapshot of ${size} files, none changed (median of ${ROUNDS})`,
      value: rounded(percentile(timings.noChangeMs, 50), 1),
      unit: 'ms',
      target: null,
      details: {
        ...tree,
        ...roundSpread(timings.noChangeMs),
        objectsWritten: timings.objectsWrittenUnchanged,
        wroteNoObjects: timings.objectsWrittenUnchanged === 0,
      },
    }),
  ];
}

function roundSpread(samples: readonly number[]) {
  return { ...spread(samples), p90: rounded(percentile(samples, 90), 1) };
}

async function measureTree(files: number): Promise<TreeTimings> {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-bench-checkpoints-'));
  try {
    const work = join(root, 'work');
    const gitDir = join(root, 'checkpoints', 'bench.git');
    const paths = await writeTree(work, files);
    const openStartedAt = performance.now();
    const repository = await ShadowRepository.open({ gitDir, workTree: work });
    const openMs = performance.now() - openStartedAt;
    const first = await timedSnapshot(repository, 'refs/outrigger/bench/first');
    const timings: TreeTimings = {
      files,
      openMs,
      firstMs: first.ms,
      oneChangeMs: [],
      noChangeMs: [],
      objectsWrittenUnchanged: 0,
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      // A different file each round, spread over the directories.
      await writeFile(join(work, paths[(round * 7919) % paths.length]!), `changed in round ${round}\n`);
      const changed = await timedSnapshot(repository, `refs/outrigger/bench/changed-${round}`);
      if (!changed.checkpoint.created) throw new Error('a snapshot after a change reused the previous commit');
      timings.oneChangeMs.push(changed.ms);
      const objectsBefore = await objectCount(gitDir);
      const unchanged = await timedSnapshot(repository, `refs/outrigger/bench/unchanged-${round}`);
      if (unchanged.checkpoint.commit !== changed.checkpoint.commit) {
        throw new Error('a snapshot of an unchanged tree made a new commit');
      }
      timings.objectsWrittenUnchanged += (await objectCount(gitDir)) - objectsBefore;
      timings.noChangeMs.push(unchanged.ms);
    }
    return timings;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** `files` small text files in FANOUT × FANOUT nested directories; returns their paths. */
async function writeTree(work: string, files: number): Promise<string[]> {
  const paths = Array.from({ length: files }, (_, i) => {
    const leaf = i % (FANOUT * FANOUT);
    return `dir${Math.floor(leaf / FANOUT)}/sub${leaf % FANOUT}/file${i}.txt`;
  });
  for (let outer = 0; outer < FANOUT; outer += 1) {
    for (let inner = 0; inner < FANOUT; inner += 1) {
      await mkdir(join(work, `dir${outer}`, `sub${inner}`), { recursive: true });
    }
  }
  for (let at = 0; at < paths.length; at += WRITE_BATCH) {
    const batch = paths.slice(at, at + WRITE_BATCH);
    await Promise.all(batch.map((path) => writeFile(join(work, path), `${path}\nsome text of a small source file\n`)));
  }
  return paths;
}

async function timedSnapshot(
  repository: ShadowRepository,
  ref: string,
): Promise<{ ms: number; checkpoint: Checkpoint }> {
  const startedAt = performance.now();
  const checkpoint = await repository.snapshot(ref);
  return { ms: performance.now() - startedAt, checkpoint };
}

/** Loose and packed objects, as `git count-objects -v` counts them. */
async function objectCount(gitDir: string): Promise<number> {
  const output = await runGit(['count-objects', '-v'], { cwd: gitDir, env: { GIT_DIR: gitDir } });
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(output.stdout.toString())?.[1]);
  return field('count') + field('in-pack');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await measureCheckpointSnapshots();
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
