import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { megabytes } from './processMemory.ts';
import { median, rounded } from './stats.ts';

const run = promisify(execFile);

/**
 * Each stage loads what the stages before it loaded plus its own modules, in a fresh Node. The built sidecar
 * needs no type stripper and bundles zod and `@outrigger/protocol`, so past bare Node only the SDK (which a
 * real sidecar loads as it starts) is a stage of its own; the rest is the bundle.
 */
const STAGES: readonly { stage: string; imports: readonly string[] }[] = [
  { stage: 'bare Node 24', imports: [] },
  { stage: 'Claude Agent SDK', imports: [import.meta.resolve('@anthropic-ai/claude-agent-sdk')] },
];
const SAMPLES = 3;
const TIMEOUT_MS = 60_000;

/** Loads the modules named in argv, idles like the sidecar does before its reading, then reports its RSS. */
const PROBE = `
for (const url of JSON.parse(process.argv[1])) await import(url);
setTimeout(() => process.stdout.write(String(process.memoryUsage().rss)), Number(process.argv[2]));
`;

export interface BaselineStage {
  stage: string;
  /** RSS of a process that loaded this stage and every one before it. */
  rssMb: number;
  /** What this stage adds to the one before. */
  addsMb: number;
}

/**
 * Where a sidecar's baseline memory goes: the median RSS of `SAMPLES` fresh Node processes per stage, read
 * after the same idle time as the sidecar's own readings. The sidecar's reading with no session comes last,
 * so its own modules and server show as the remainder.
 */
export async function measureBaselineBreakdown(idleMs: number, sidecarNoSessionMb: number): Promise<BaselineStage[]> {
  const stages: BaselineStage[] = [];
  let previousMb = 0;
  const imports: string[] = [];
  for (const { stage, imports: added } of STAGES) {
    imports.push(...added);
    // Memory does not depend on CPU contention, so the samples of a stage run side by side.
    const samples = await Promise.all(Array.from({ length: SAMPLES }, () => probeRss(imports, idleMs)));
    const rssMb = megabytes(median(samples) / 1024);
    stages.push({ stage, rssMb: rounded(rssMb, 1), addsMb: rounded(rssMb - previousMb, 1) });
    previousMb = rssMb;
  }
  stages.push({
    stage: 'the built sidecar (zod, protocol, its own modules and server), no session',
    rssMb: rounded(sidecarNoSessionMb, 1),
    addsMb: rounded(sidecarNoSessionMb - previousMb, 1),
  });
  return stages;
}

async function probeRss(imports: readonly string[], idleMs: number): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '--eval', PROBE, JSON.stringify(imports), String(idleMs)],
    { timeout: TIMEOUT_MS },
  );
  const bytes = Number(stdout);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new Error(`the memory probe printed ${stdout.slice(0, 100)}`);
  return bytes;
}
