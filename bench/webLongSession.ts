import { chromiumMissing, measureLongSessionOpen } from '@outrigger/web/longSessionBench';
import { type Figure, measuredFigure, skippedFigure } from './figure.ts';
import { median, rounded } from './stats.ts';

const ROWS = 5000;

const FIGURE = {
  id: 'web_long_session_open_ms',
  title: `web UI opens a ${ROWS}-message session (median, navigation → newest rows painted)`,
  unit: 'ms',
  target: { comparison: '<', value: 1000 },
} as const;

/**
 * The long-session figure: the built UI in Chromium opens a session of 5,000 transcript rows served
 * by the fixture host (the snapshot carries the newest page; older pages load on scroll).
 */
export async function measureWebLongSession(runs: number): Promise<Figure> {
  const missing = chromiumMissing();
  if (missing !== null) return skippedFigure(FIGURE, missing);
  const timing = await measureLongSessionOpen(ROWS, runs);
  return measuredFigure({
    ...FIGURE,
    value: rounded(median(timing.openMs)),
    details: { runs: timing.openMs.map(rounded), mountedRows: timing.mountedRows, rows: timing.rows },
  });
}
