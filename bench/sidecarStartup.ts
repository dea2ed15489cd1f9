import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import type { BenchModel } from './benchModel.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { nextEvent, turnTerminal } from './sidecarTurns.ts';
import { rounded } from './stats.ts';

const IDLE_MS = 1_000;
const TIMEOUT_MS = 60_000;

/**
 * Figure 2: a fresh sidecar process against mock-anthropic. Time from spawning it to `session_started`,
 * split into the sidecar's own boot (until it answers a no-op `close`) and the `start` request (Claude
 * Code's start and initialization); then the sidecar's own resident memory (not its Claude Code
 * child's) once the session has been idle for a second, after `start` and again after one turn.
 */
export async function measureSidecarStartup(model: BenchModel): Promise<Figure[]> {
  const spawnedAt = performance.now();
  const sidecar = await spawnSidecarProcess({ env: model.home.env });
  try {
    // Closing a session that does not exist is answered at once: the sidecar is up and reading.
    await sidecar.client.request('close', { agentSessionId: 'not-started' }, { timeoutMs: TIMEOUT_MS });
    const bootedAt = performance.now();
    const rssAfterBoot = await residentKilobytes(sidecar.pid);
    const requestedAt = performance.now();
    const started = nextEvent(sidecar, (event) => event.type === 'session_started', TIMEOUT_MS, 'session_started');
    const answered = sidecar.client.request(
      'start',
      { agentSessionId: 'bench', cwd: model.home.cwd },
      { timeoutMs: TIMEOUT_MS },
    );
    await started;
    const sessionStartedAt = performance.now();
    await answered;

    await sleep(IDLE_MS);
    const rssAfterStart = await residentKilobytes(sidecar.pid);
    const turnId = 'startup-turn';
    const ended = turnTerminal(sidecar, turnId, TIMEOUT_MS);
    await sidecar.client.request('exec', { agentSessionId: 'bench', turnId, prompt: 'bench: one turn' });
    const terminal = await ended;
    if (terminal.type !== 'turn_completed') throw new Error(`the startup bench turn ended with ${terminal.type}`);
    await sleep(IDLE_MS);
    const rssAfterTurn = await residentKilobytes(sidecar.pid);
    await sidecar.client.request('close', { agentSessionId: 'bench' });

    const idleRssMb = Math.max(rssAfterStart, rssAfterTurn) / 1024;
    return [
      measuredFigure({
        id: 'start_to_session_started',
        title: 'spawn → session_started',
        value: rounded(sessionStartedAt - spawnedAt, 1),
        unit: 'ms',
        target: null,
        details: {
          sidecarBootMs: rounded(bootedAt - spawnedAt, 1),
          startRequestToSessionStartedMs: rounded(sessionStartedAt - requestedAt, 1),
        },
      }),
      measuredFigure({
        id: 'sidecar_idle_rss',
        title: 'sidecar idle RSS (without Claude Code)',
        value: rounded(idleRssMb, 1),
        unit: 'MB',
        target: { comparison: '<', value: 60 },
        details: {
          afterBootMb: rounded(rssAfterBoot / 1024, 1),
          afterStartMb: rounded(rssAfterStart / 1024, 1),
          afterOneTurnMb: rounded(rssAfterTurn / 1024, 1),
          idleMs: IDLE_MS,
          note: 'VmRSS of the sidecar pid only; the value is the larger of the two readings',
        },
      }),
    ];
  } finally {
    await sidecar.stop();
  }
}

async function residentKilobytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}
