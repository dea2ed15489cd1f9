import fc from 'fast-check';

/*
 * How every fuzz test of the repo runs its properties: once with a fixed seed (the same cases on every
 * machine, so a regression fails the same way twice) and once with a fresh random seed (new cases each run).
 * A failure names its seed and path; OUTRIGGER_FUZZ_SEED (and OUTRIGGER_FUZZ_PATH) replays exactly that
 * case, OUTRIGGER_FUZZ_RUNS multiplies the number of cases for a longer local run.
 */

/** The fixed seed: the cases every run sees. */
export const FIXED_FUZZ_SEED = 0x0a7d1660;

export const FUZZ_SEED_ENV = 'OUTRIGGER_FUZZ_SEED';
export const FUZZ_PATH_ENV = 'OUTRIGGER_FUZZ_PATH';
export const FUZZ_RUNS_ENV = 'OUTRIGGER_FUZZ_RUNS';

export interface FuzzRun {
  /** `fixed`, `random` or `replay`. */
  readonly label: string;
  readonly seed: number;
  readonly path?: string;
  readonly numRuns: number;
}

export interface FuzzRunOptions {
  /** Cases per seed before OUTRIGGER_FUZZ_RUNS scales them. */
  readonly numRuns: number;
  readonly env?: NodeJS.ProcessEnv;
  /** Where a random seed is drawn from (tests of this module pin it). */
  readonly randomSeed?: () => number;
  /** More fast-check parameters, e.g. `endOnFailure` where shrinking against a broken server is pointless. */
  readonly parameters?: Omit<fc.Parameters<unknown>, 'seed' | 'numRuns' | 'path'>;
}

/** The seeds one property runs under: the fixed and a random one, or only the one being replayed. */
export function fuzzRuns(options: FuzzRunOptions): FuzzRun[] {
  const env = options.env ?? process.env;
  const scale = positiveNumber(env[FUZZ_RUNS_ENV]) ?? 1;
  const numRuns = Math.max(1, Math.round(options.numRuns * scale));
  const replay = env[FUZZ_SEED_ENV]?.trim();
  if (replay) {
    const seed = Number(replay);
    if (!Number.isSafeInteger(seed)) throw new Error(`${FUZZ_SEED_ENV} must be an integer, got ${replay}`);
    const path = env[FUZZ_PATH_ENV]?.trim();
    return [{ label: 'replay', seed, numRuns, ...(path ? { path } : {}) }];
  }
  const randomSeed = options.randomSeed ?? (() => (Math.random() * 0x7fffffff) | 0);
  return [
    { label: 'fixed', seed: FIXED_FUZZ_SEED, numRuns },
    { label: 'random', seed: randomSeed(), numRuns },
  ];
}

/**
 * Checks `property` under every seed of `fuzzRuns`. A failure rethrows fast-check's report (counterexample,
 * seed, path) headed by the line that replays it.
 */
export async function assertFuzz<Ts>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<Ts> | fc.IPropertyWithHooks<Ts>,
  options: FuzzRunOptions,
): Promise<FuzzRun[]> {
  const runs = fuzzRuns(options);
  for (const run of runs) {
    const parameters: fc.Parameters<Ts> = {
      ...(options.parameters as fc.Parameters<Ts> | undefined),
      seed: run.seed,
      numRuns: run.numRuns,
      ...(run.path ? { path: run.path } : {}),
    };
    const details = await fc.check(property as fc.IAsyncProperty<Ts>, parameters);
    if (details.failed) {
      const replay = `${FUZZ_SEED_ENV}=${details.seed} ${FUZZ_PATH_ENV}=${details.counterexamplePath ?? ''}`;
      throw new Error(
        `fuzz "${name}" failed with the ${run.label} seed; replay with ${replay}\n${fc.defaultReportMessage(details)}`,
        {
          cause: details.errorInstance,
        },
      );
    }
  }
  return runs;
}

function positiveNumber(value: string | undefined): number | undefined {
  const parsed = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}
