import { setTimeout as sleep } from 'node:timers/promises';
import {
  SIDECAR_BUILT_ENTRY,
  SIDECAR_SOURCE_ENTRY,
  type SidecarProcess,
  spawnSidecarProcess,
} from '@outrigger/claude-sdk-sidecar/process';
import { type Figure, measuredFigure } from './figure.ts';
import { megabytes, residentKilobytes } from './processMemory.ts';
import { spread } from './stats.ts';

/** How long the sidecar sits idle after its first `start` before its memory is read. */
const IDLE_MS = 1_000;
const TIMEOUT_MS = 30_000;
const DRIVER_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TUTTI_CLAUDE_SDK_SIDECAR_TEST_DRIVER: '1' };

const ENTRIES = { built: SIDECAR_BUILT_ENTRY, source: SIDECAR_SOURCE_ENTRY } as const;
type Entry = keyof typeof ENTRIES;

interface ColdStart {
  startMs: number;
  idleRssKb: number;
}

/**
 * Cold starts in test-driver mode (no SDK, no Claude Code: the sidecar's own cost), of the built entry and
 * of the TypeScript source, `runs` of each, alternating which goes first so drifting load hits both alike.
 * A run times spawning a fresh sidecar to the `ok` of its first `start`, then reads its VmRSS after a second
 * idle. Targets apply to the built entry, which hosts run.
 */
export async function measureColdStarts(runs: number): Promise<Figure[]> {
  const samples: Record<Entry, ColdStart[]> = { built: [], source: [] };
  for (let run = 0; run < runs; run++) {
    const order: Entry[] = run % 2 === 0 ? ['built', 'source'] : ['source', 'built'];
    for (const entry of order) samples[entry].push(await coldStart(ENTRIES[entry]));
  }
  const start = (entry: Entry) => spread(samples[entry].map((sample) => sample.startMs));
  const rss = (entry: Entry) => spread(samples[entry].map((sample) => megabytes(sample.idleRssKb)));
  const note = `median of ${runs} cold starts in test-driver mode, built and source alternating`;
  return [
    measuredFigure({
      id: 'cold_start',
      title: 'built sidecar: spawn → ok of the first start (test driver)',
      value: start('built').median,
      unit: 'ms',
      target: { comparison: '<=', value: 240 },
      details: { built: start('built'), source: start('source'), note },
    }),
    measuredFigure({
      id: 'cold_start_source',
      title: 'source sidecar (node src/main.ts): spawn → ok of the first start (test driver)',
      value: start('source').median,
      unit: 'ms',
      target: null,
      details: { source: start('source'), note },
    }),
    measuredFigure({
      id: 'idle_rss',
      title: 'built sidecar: RSS idle after the first start (test driver)',
      value: rss('built').median,
      unit: 'MB',
      target: { comparison: '<=', value: 100 },
      details: { built: rss('built'), source: rss('source'), idleMs: IDLE_MS, note },
    }),
    measuredFigure({
      id: 'idle_rss_source',
      title: 'source sidecar: RSS idle after the first start (test driver)',
      value: rss('source').median,
      unit: 'MB',
      target: null,
      details: { source: rss('source'), idleMs: IDLE_MS, note },
    }),
  ];
}

async function coldStart(entry: string): Promise<ColdStart> {
  const spawnedAt = performance.now();
  const sidecar: SidecarProcess = await spawnSidecarProcess({ env: DRIVER_ENV, entry, requestTimeoutMs: TIMEOUT_MS });
  try {
    await sidecar.request('start', { agentSessionId: 'cold-start', cwd: process.cwd() });
    const startMs = performance.now() - spawnedAt;
    await sleep(IDLE_MS);
    return { startMs, idleRssKb: await residentKilobytes(sidecar.pid) };
  } finally {
    await sidecar.stop();
  }
}
