import { runSoak } from '../packages/host/test/harness/soak.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { childPids, megabytes, residentKilobytes } from './processMemory.ts';
import { rounded } from './stats.ts';

interface Sample {
  atSeconds: number;
  /** `outrigger serve` with real Claude Code sessions, its sidecar, and its Claude Code processes together. */
  realHostMb: number;
  realSidecarMb: number;
  claudeCodeMb: number;
  claudeCodeProcesses: number;
  /** `outrigger serve` with test-driver sessions, and its sidecar. */
  driverHostMb: number;
  driverSidecarMb: number;
}

/**
 * Memory over the soak of issue 11 (`packages/host/test/harness/soak.ts`: 3 real Claude Code and 6
 * test-driver sessions on two hosts, turns with cancels, approvals, queues and steers all the while). Every
 * two seconds the VmRSS of each host, its sidecar and the Claude Code processes below it is read. The figure
 * is the real host's growth from the first sample after the warm-up to the last; the samples and the soak's
 * own report (turns, events, lost and stuck counts) are in the details.
 */
export async function measureSoakMemory(seconds: number, seed: number): Promise<Figure> {
  const samples: Sample[] = [];
  const started = performance.now();
  const report = await runSoak({
    durationMs: seconds * 1_000,
    realSessions: 3,
    driverSessions: 6,
    seed,
    sampleEveryMs: 2_000,
    onSample: async ({ real, driver }) => {
      try {
        const [realSidecar] = await childPids(real);
        const [driverSidecar] = await childPids(driver);
        const claude = realSidecar === undefined ? [] : await childPids(realSidecar);
        const rss = async (pid: number | undefined) =>
          pid === undefined ? 0 : megabytes(await residentKilobytes(pid));
        let claudeCodeMb = 0;
        for (const pid of claude) claudeCodeMb += await rss(pid).catch(() => 0);
        samples.push({
          atSeconds: rounded((performance.now() - started) / 1_000, 1),
          realHostMb: rounded(await rss(real), 1),
          realSidecarMb: rounded(await rss(realSidecar), 1),
          claudeCodeMb: rounded(claudeCodeMb, 1),
          claudeCodeProcesses: claude.length,
          driverHostMb: rounded(await rss(driver), 1),
          driverSidecarMb: rounded(await rss(driverSidecar), 1),
        });
      } catch {
        // a process was between states (a Claude Code retired by a cancel): skip this sample
      }
    },
  });
  const settled = samples.slice(Math.min(2, samples.length - 1));
  const first = settled[0];
  const last = settled.at(-1);
  const peak = (key: keyof Sample) => Math.max(...samples.map((sample) => sample[key]));
  return measuredFigure({
    id: 'soak_host_rss_growth_mb',
    title: `host RSS growth over a ${seconds} s soak (3 real + 6 test-driver sessions)`,
    // Growth needs two samples; fewer (every read failed) is no figure, never a growth of 0.
    value:
      first === undefined || last === undefined || settled.length < 2
        ? Number.NaN
        : rounded(last.realHostMb - first.realHostMb, 1),
    unit: 'MB',
    target: null,
    details: {
      seconds,
      seed,
      samples: samples.length,
      first,
      last,
      peakMb: {
        realHost: peak('realHostMb'),
        realSidecar: peak('realSidecarMb'),
        claudeCode: peak('claudeCodeMb'),
        driverHost: peak('driverHostMb'),
        driverSidecar: peak('driverSidecarMb'),
      },
      soak: {
        turns: report.turns,
        events: report.events,
        actions: report.actions,
        lostEvents: report.lostEvents,
        stuckTurns: report.stuckTurns.length,
        errors: report.errors.length,
      },
      series: samples,
    },
  });
}
