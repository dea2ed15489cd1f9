import { randomUUID } from 'node:crypto';
import type { HostClient } from '@outrigger/host-api';
import { killMarkedProcesses } from '../packages/host/test/harness/processes.ts';
import { spawnServe } from '../packages/host/test/harness/serveChild.ts';
import type { BenchModel } from './benchModel.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { doneOf, SessionStream } from './sessionStream.ts';
import { median, rounded, spreadOf } from './stats.ts';

const SESSIONS = 4;

/**
 * Four sessions on real Claude Code at once against one: `outrigger serve` as a child with 4 warm sessions
 * (each its own Claude Code). A round runs `turnsPerRound` turns on one session alone, then the same number
 * on all four at once (each session its turns one after another, the four in parallel); rounds alternate
 * which comes first. The figure is the median turn time with four running over the median with one, from
 * the same run; the wall time per turn (throughput) is in the details.
 */
export async function measureConcurrentSessions(
  model: BenchModel,
  options: { rounds: number; turnsPerRound: number },
): Promise<Figure> {
  const mark = randomUUID();
  const host = await spawnServe({
    args: ['--port', '0', '--data-dir', `${model.home.root}/host-concurrent-data`],
    env: { ...model.home.env, OUTRIGGER_LOG_LEVEL: 'warn' },
    mark,
  });
  const sessions: { id: string; stream: SessionStream }[] = [];
  try {
    const { client } = host;
    for (let index = 0; index < SESSIONS; index++) {
      const { id } = await client.call('createSession', { body: { cwd: model.home.cwd, title: `bench ${index}` } });
      const stream = new SessionStream(client, id, (await client.call('getSession', { params: { id } })).lastSeq);
      sessions.push({ id, stream });
    }
    // Warm: every session's Claude Code started and past its first turn.
    await Promise.all(sessions.map((session, index) => turn(client, session, `warm-up ${index}`)));
    const alone: number[] = [];
    const together: number[] = [];
    const wallPerTurn = { alone: [] as number[], together: [] as number[] };
    for (let round = 0; round < options.rounds; round++) {
      const runAlone = async () => {
        const started = performance.now();
        for (let t = 0; t < options.turnsPerRound; t++) {
          alone.push(await turn(client, sessions[0] as (typeof sessions)[number], `alone ${round}.${t}`));
        }
        wallPerTurn.alone.push((performance.now() - started) / options.turnsPerRound);
      };
      const runTogether = async () => {
        const started = performance.now();
        await Promise.all(
          sessions.map(async (session, index) => {
            for (let t = 0; t < options.turnsPerRound; t++) {
              together.push(await turn(client, session, `together ${round}.${index}.${t}`));
            }
          }),
        );
        wallPerTurn.together.push((performance.now() - started) / (options.turnsPerRound * SESSIONS));
      };
      if (round % 2 === 0) {
        await runAlone();
        await runTogether();
      } else {
        await runTogether();
        await runAlone();
      }
    }
    return measuredFigure({
      id: 'concurrent_sessions_turn_ratio',
      title: `turn time with ${SESSIONS} real sessions turning at once / with one (median)`,
      value: rounded(median(together) / median(alone)),
      unit: '×',
      target: null,
      details: {
        rounds: options.rounds,
        turnsPerRound: options.turnsPerRound,
        turnMs: { one: spreadOf(alone), four: spreadOf(together) },
        wallMsPerTurn: { one: spreadOf(wallPerTurn.alone), four: spreadOf(wallPerTurn.together) },
      },
    });
  } finally {
    for (const session of sessions) await session.stream.close();
    await host.stop('SIGTERM');
    killMarkedProcesses(mark);
  }
}

async function turn(
  client: HostClient,
  session: { id: string; stream: SessionStream },
  label: string,
): Promise<number> {
  const from = session.stream.position;
  const sentAt = performance.now();
  const { turnId } = await client.call('postTurn', {
    params: { id: session.id },
    body: { prompt: `bench: concurrent ${label}` },
  });
  return (await session.stream.arrival(doneOf(turnId), from, `the done of ${turnId}`)) - sentAt;
}
