/** One benchmark figure as it lands in `bench/results/latest.json`. */
export interface Figure {
  /** Stable key, e.g. `projection_throughput`. */
  id: string;
  title: string;
  /** The headline number the target applies to; null when the figure was skipped. */
  value: number | null;
  unit: string;
  /** Null for a figure recorded without a target (so regressions show). */
  target: Target | null;
  /** Whether `value` meets `target`; null when skipped or without a target. */
  met: boolean | null;
  /** Further numbers from the same run (secondary targets, samples, counts). */
  details: Record<string, unknown>;
  /** Why the figure was not measured. */
  skipped?: string;
}

export interface Target {
  comparison: '>=' | '<=' | '<';
  value: number;
}

export function meets(value: number, target: Target): boolean {
  switch (target.comparison) {
    case '>=':
      return value >= target.value;
    case '<=':
      return value <= target.value;
    case '<':
      return value < target.value;
  }
}

/**
 * A measured figure; one whose value is not a finite number (a median or a ratio of no samples) measured
 * nothing, and is reported as skipped with its details, never as a number or a missed target.
 */
export function measuredFigure(fields: Omit<Figure, 'met' | 'skipped'> & { value: number }): Figure {
  if (!Number.isFinite(fields.value)) {
    return { ...fields, value: null, met: null, skipped: `measured nothing (the value came out ${fields.value})` };
  }
  return { ...fields, met: fields.target === null ? null : meets(fields.value, fields.target) };
}

export function skippedFigure(fields: Omit<Figure, 'met' | 'skipped' | 'value' | 'details'>, reason: string): Figure {
  return { ...fields, value: null, met: null, details: {}, skipped: reason };
}
