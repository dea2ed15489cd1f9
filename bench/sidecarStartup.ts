import { setTimeout as sleep } from 'node:timers/promises';
import { type SidecarProcess, spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import { measureBaselineBreakdown } from './baselineBreakdown.ts';
import type { BenchModel } from './benchModel.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { childPids, megabytes, residentKilobytes } from './processMemory.ts';
import { completeTurn, nextEvent } from './sidecarTurns.ts';
import { rounded } from './stats.ts';

/** How long the sidecar sits idle before each memory reading. */
const IDLE_MS = 1_000;
const TIMEOUT_MS = 60_000;
/** Sessions open for the marginal reading; each keeps its own idle Claude Code child. */
const SESSIONS = 3;

/**
 * Figure 2: one fresh sidecar process against mock-anthropic. Time from spawning it to `session_started`,
 * split into the sidecar's own boot (until it answers a no-op `close`) and the `start` request (Claude
 * Code's start and initialization). Then the sidecar's own resident memory (never its Claude Code
 * children's), each reading after a second of idle: with no session, with one idle session (after `start`
 * and after one turn), and with `SESSIONS` idle sessions, each started and given one turn. The target
 * applies to the marginal memory of an idle session; the baseline is broken down by what a Node process
 * needs to load to become a sidecar.
 */
export async function measureSidecarStartup(model: BenchModel): Promise<Figure[]> {
  const spawnedAt = performance.now();
  const sidecar = await spawnSidecarProcess({ env: model.home.env });
  const sessions: string[] = [];
  let noSessionKb: number;
  let startup: { bootMs: number; startRequestMs: number };
  let oneSession: { afterStartKb: number; afterTurnKb: number };
  let allSessionsKb: number;
  let childrenKb: number[];
  try {
    // Closing a session that does not exist is answered at once: the sidecar is up and reading.
    await sidecar.client.request('close', { agentSessionId: 'not-started' }, { timeoutMs: TIMEOUT_MS });
    const bootMs = performance.now() - spawnedAt;
    noSessionKb = await idleResidentKilobytes(sidecar);

    sessions.push('bench-1');
    const startRequestMs = await startSession(sidecar, model, 'bench-1');
    startup = { bootMs, startRequestMs };
    const afterStartKb = await idleResidentKilobytes(sidecar);
    await runTurn(sidecar, 'bench-1');
    oneSession = { afterStartKb, afterTurnKb: await idleResidentKilobytes(sidecar) };

    while (sessions.length < SESSIONS) {
      const agentSessionId = `bench-${sessions.length + 1}`;
      sessions.push(agentSessionId);
      await startSession(sidecar, model, agentSessionId);
      await runTurn(sidecar, agentSessionId);
    }
    allSessionsKb = await idleResidentKilobytes(sidecar);
    childrenKb = await Promise.all((await childPids(sidecar.pid)).map(residentKilobytes));
    for (const agentSessionId of sessions) await sidecar.client.request('close', { agentSessionId });
  } finally {
    await sidecar.stop();
  }
  const breakdown = await measureBaselineBreakdown(IDLE_MS, megabytes(noSessionKb));

  const oneSessionKb = Math.max(oneSession.afterStartKb, oneSession.afterTurnKb);
  const perSessionMb = megabytes(allSessionsKb - oneSession.afterTurnKb) / (SESSIONS - 1);
  return [
    measuredFigure({
      id: 'start_to_session_started',
      title: 'spawn → session_started',
      value: rounded(startup.bootMs + startup.startRequestMs, 1),
      unit: 'ms',
      target: null,
      details: {
        sidecarBootMs: rounded(startup.bootMs, 1),
        startRequestToSessionStartedMs: rounded(startup.startRequestMs, 1),
        note: 'the idle second before the first memory reading is not counted',
      },
    }),
    measuredFigure({
      id: 'sidecar_rss_baseline',
      title: 'sidecar RSS, one idle session (without Claude Code)',
      value: rounded(megabytes(oneSessionKb), 1),
      unit: 'MB',
      target: null,
      details: {
        noSessionMb: rounded(megabytes(noSessionKb), 1),
        oneSessionAfterStartMb: rounded(megabytes(oneSession.afterStartKb), 1),
        oneSessionAfterTurnMb: rounded(megabytes(oneSession.afterTurnKb), 1),
        breakdown,
        idleMs: IDLE_MS,
        note: 'VmRSS of the sidecar pid only; the value is the larger of the two one-session readings',
      },
    }),
    measuredFigure({
      id: 'sidecar_rss_per_idle_session',
      title: 'sidecar RSS per further idle session (without Claude Code)',
      value: rounded(perSessionMb, 1),
      unit: 'MB',
      target: { comparison: '<', value: 60 },
      details: {
        sessions: SESSIONS,
        oneSessionMb: rounded(megabytes(oneSession.afterTurnKb), 1),
        allSessionsMb: rounded(megabytes(allSessionsKb), 1),
        claudeCodeChildrenMb: childrenKb.map((kb) => rounded(megabytes(kb), 1)),
        idleMs: IDLE_MS,
        note: `(RSS with ${SESSIONS} idle sessions − RSS with 1) / ${SESSIONS - 1}, each session started and given one turn; the Claude Code children are listed, not counted`,
      },
    }),
  ];
}

/** Sends `start` and returns the time from the request to `session_started`. */
async function startSession(sidecar: SidecarProcess, model: BenchModel, agentSessionId: string): Promise<number> {
  const requestedAt = performance.now();
  // Events carry no session id; the other sessions are idle, so the next `session_started` is this one's.
  const started = nextEvent(
    sidecar,
    (event) => event.type === 'session_started',
    TIMEOUT_MS,
    `session_started of ${agentSessionId}`,
  );
  const answered = sidecar.client.request('start', { agentSessionId, cwd: model.home.cwd }, { timeoutMs: TIMEOUT_MS });
  await started;
  const startRequestMs = performance.now() - requestedAt;
  await answered;
  return startRequestMs;
}

function runTurn(sidecar: SidecarProcess, agentSessionId: string): Promise<void> {
  return completeTurn(
    sidecar,
    { agentSessionId, turnId: `${agentSessionId}-turn`, prompt: 'bench: one turn' },
    TIMEOUT_MS,
  );
}

async function idleResidentKilobytes(sidecar: SidecarProcess): Promise<number> {
  await sleep(IDLE_MS);
  return residentKilobytes(sidecar.pid);
}
