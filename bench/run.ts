import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildSidecar } from '@outrigger/claude-sdk-sidecar/build';
import { openBenchModel } from './benchModel.ts';
import { measureCancelLatency } from './cancelLatency.ts';
import { measureCheckpointSnapshots } from './checkpointSnapshot.ts';
import { measureColdStarts } from './coldStart.ts';
import { measureConcurrentSessions } from './concurrentSessions.ts';
import { measureDurableEventThroughput } from './durableEventThroughput.ts';
import type { Figure } from './figure.ts';
import { measureFirstToken } from './firstToken.ts';
import { measureHistory } from './historyIndex.ts';
import { measureHostCancelLatency } from './hostCancelLatency.ts';
import { measureHostMemory } from './hostMemory.ts';
import { measureProjectionThroughput } from './projectionThroughput.ts';
import { measureSidecarStartup } from './sidecarStartup.ts';
import { measureSoakMemory } from './soakMemory.ts';
import { measureSseFanout } from './sseFanout.ts';
import { measureTurnOverhead } from './turnOverhead.ts';
import { measureWebLongSession } from './webLongSession.ts';

const RESULTS_PATH = fileURLToPath(new URL('./results/latest.json', import.meta.url));

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '30' },
    cancels: { type: 'string', default: '10' },
    starts: { type: 'string', default: '5' },
    'first-token-rounds': { type: 'string', default: '12' },
    'host-cancels': { type: 'string', default: '10' },
    'concurrent-rounds': { type: 'string', default: '3' },
    'concurrent-turns': { type: 'string', default: '4' },
    'soak-seconds': { type: 'string', default: '60' },
    'soak-seed': { type: 'string', default: '1' },
    only: { type: 'string', multiple: true },
  },
});
const GROUPS = [
  'projection',
  'durable_events',
  'sse_fanout',
  'host_memory',
  'web_long_session',
  'cold_start',
  'checkpoints',
  'history',
  'startup',
  'turn_overhead',
  'cancel',
  'first_token',
  'host_cancel',
  'concurrent',
  'soak_memory',
] as const;
const only = new Set(values.only ?? GROUPS);
for (const group of only) {
  if (!(GROUPS as readonly string[]).includes(group))
    throw new Error(`--only takes ${GROUPS.join(', ')}; not ${group}`);
}
const runs = (group: (typeof GROUPS)[number]) => only.has(group);
const turns = positiveInteger(values.turns, 'turns');
const rounds = positiveInteger(values.rounds, 'rounds');
const cancels = positiveInteger(values.cancels, 'cancels');
const starts = positiveInteger(values.starts, 'starts');
const firstTokenRounds = positiveInteger(values['first-token-rounds'], 'first-token-rounds');
const hostCancels = positiveInteger(values['host-cancels'], 'host-cancels');
const concurrentRounds = positiveInteger(values['concurrent-rounds'], 'concurrent-rounds');
const concurrentTurns = positiveInteger(values['concurrent-turns'], 'concurrent-turns');
const soakSeconds = positiveInteger(values['soak-seconds'], 'soak-seconds');
const soakSeed = positiveInteger(values['soak-seed'], 'soak-seed');

const startedAt = new Date();
const figures: Figure[] = [];
const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

// Every sidecar below runs the built entry: build it now, so no figure ever measures a stale bundle.
const build = await buildSidecar();
progress(`built the sidecar in ${Math.round(build.durationMs)} ms`);

if (runs('projection')) {
  progress('projection throughput (scripted SDK messages, no Claude Code)');
  figures.push(...(await measureProjectionThroughput()));
}
if (runs('durable_events')) {
  progress('durable events through the host store and event hub to 10 streams (no HTTP)');
  figures.push(...(await measureDurableEventThroughput()));
}
if (runs('sse_fanout')) {
  progress('durable events to 10 SSE clients over HTTP');
  figures.push(...(await measureSseFanout()));
}
if (runs('host_memory')) {
  progress('host RSS with 50 test-driver sessions (outrigger serve as a child)');
  figures.push(...(await measureHostMemory()));
}
if (runs('web_long_session')) {
  progress('web UI: open a 5,000-message session in Chromium');
  figures.push(await measureWebLongSession(5));
}
if (runs('cold_start')) {
  progress(`${starts} cold starts each of the built and the source sidecar (test driver)`);
  figures.push(...(await measureColdStarts(starts)));
}
if (runs('checkpoints')) {
  progress('checkpoint snapshots of 1k, 10k and 50k-file trees in a shadow git repository');
  figures.push(...(await measureCheckpointSnapshots()));
}
if (runs('history')) {
  progress('Claude Code history: index, list and first page over 2,000 generated transcripts (200 MB), idle CPU');
  figures.push(...(await measureHistory()));
}

const model = await openBenchModel();
let unmatchedRequests = 0;
try {
  if (runs('startup')) {
    progress('sidecar start time and idle RSS (1 and 3 sessions, baseline breakdown)');
    figures.push(...(await measureSidecarStartup(model)));
  }
  if (runs('turn_overhead')) {
    progress(`${turns}-turn overhead, raw query() (minimal, same options) vs sidecar, ${rounds} alternating rounds`);
    figures.push(...(await measureTurnOverhead(model, { turns, rounds })));
  }
  if (runs('cancel')) {
    progress(`cancel latency over ${cancels} cancels`);
    figures.push(await measureCancelLatency(model, cancels));
  }
  if (runs('first_token')) {
    progress(
      `time to first token and turn time, raw query() vs sidecar vs host → SSE, ${firstTokenRounds} rotating rounds`,
    );
    figures.push(...(await measureFirstToken(model, firstTokenRounds)));
  }
  if (runs('host_cancel')) {
    progress(`cancel latency through the host over ${hostCancels} cancels`);
    figures.push(await measureHostCancelLatency(model, hostCancels));
  }
  if (runs('concurrent')) {
    progress(
      `4 concurrent real sessions vs 1 through the host, ${concurrentRounds} rounds of ${concurrentTurns} turns`,
    );
    figures.push(await measureConcurrentSessions(model, { rounds: concurrentRounds, turnsPerRound: concurrentTurns }));
  }
} finally {
  unmatchedRequests = await model.close();
}

if (runs('soak_memory')) {
  progress(`memory over a ${soakSeconds} s soak (3 real + 6 test-driver sessions, seed ${soakSeed})`);
  figures.push(await measureSoakMemory(soakSeconds, soakSeed));
}

const report = {
  startedAt: startedAt.toISOString(),
  durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 100) / 10,
  machine: { node: process.version, cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown' },
  parameters: {
    turns,
    rounds,
    cancels,
    starts,
    firstTokenRounds,
    hostCancels,
    concurrentRounds,
    concurrentTurns,
    soakSeconds,
    soakSeed,
    only: [...only],
  },
  build: { durationMs: Math.round(build.durationMs), bytes: build.bytes, modules: build.inputs },
  unmatchedRequests,
  figures,
};
await writeFile(RESULTS_PATH, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`${table(figures)}\nwrote ${RESULTS_PATH} (${report.durationSeconds} s)\n`);
if (unmatchedRequests > 0) {
  process.stderr.write(`bench: ${unmatchedRequests} model requests matched no bench rule; the figures may be off\n`);
  process.exitCode = 1;
}

function table(rows: readonly Figure[]): string {
  const cells = rows.map((figure) => [
    figure.title,
    figure.value === null ? 'skipped' : `${figure.value.toLocaleString('en-US')} ${figure.unit}`,
    figure.target === null
      ? '—'
      : `${figure.target.comparison} ${figure.target.value.toLocaleString('en-US')} ${figure.unit}`,
    figure.met === null ? (figure.skipped ?? '—') : figure.met ? 'met' : 'MISSED',
  ]);
  const header = ['figure', 'value', 'target', 'result'];
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

function positiveInteger(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}
