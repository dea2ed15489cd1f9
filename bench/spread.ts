import { median, percentile, rounded } from './stats.ts';

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
