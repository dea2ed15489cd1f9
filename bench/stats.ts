/** The nearest-rank percentile (`p` in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** The middle sample, or the mean of the two middle ones for an even count (never the kinder of the two); NaN when empty. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Rounds for the report: three significant decimals are more than the noise allows. */
export function rounded(value: number, decimals = 3): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/** How a set of samples spreads: the run count, the median, the quartiles and the extremes. */
export interface Spread {
  n: number;
  median: number;
  p25: number;
  p75: number;
  p95: number;
  min: number;
  max: number;
}

export function spreadOf(samples: readonly number[], decimals = 1): Spread {
  return {
    n: samples.length,
    median: rounded(median(samples), decimals),
    p25: rounded(percentile(samples, 25), decimals),
    p75: rounded(percentile(samples, 75), decimals),
    p95: rounded(percentile(samples, 95), decimals),
    min: rounded(percentile(samples, 0), decimals),
    max: rounded(percentile(samples, 100), decimals),
  };
}

/** A median with the spread around it: how many samples, the lowest, the highest and every one, rounded. */
export function spread(
  samples: readonly number[],
  decimals = 1,
): { runs: number; median: number; min: number; max: number; samples: number[] } {
  const around = spreadOf(samples, decimals);
  return {
    runs: around.n,
    median: around.median,
    min: around.min,
    max: around.max,
    samples: samples.map((sample) => rounded(sample, decimals)),
  };
}
