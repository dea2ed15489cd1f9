import { randomUUID } from 'node:crypto';
import { killMarkedProcesses } from '../packages/host/test/harness/processes.ts';
import { spawnServe } from '../packages/host/test/harness/serveChild.ts';
import { type BenchModel, SLOW_PROMPT } from './benchModel.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { doneOf, firstTextOf, SessionStream } from './sessionStream.ts';
import { percentile, rounded, spreadOf } from './stats.ts';

/**
 * Cancel through the host: `outrigger serve` as a child, one session on real Claude Code; a slowly
 * streaming turn is started, and once its first text reached the client over SSE, `POST …/cancel` is timed
 * from the request to its response (which waits until the cancel's outcome is committed). Each cancel retires
 * the Claude Code process, so each turn starts a new one; only the cancel itself is timed.
 */
export async function measureHostCancelLatency(model: BenchModel, cancels: number): Promise<Figure> {
  const mark = randomUUID();
  const host = await spawnServe({
    args: ['--port', '0', '--data-dir', `${model.home.root}/host-cancel-data`],
    env: { ...model.home.env, OUTRIGGER_LOG_LEVEL: 'warn' },
    mark,
  });
  try {
    const { client } = host;
    const { id } = await client.call('createSession', { body: { cwd: model.home.cwd, title: 'bench cancel' } });
    const stream = new SessionStream(client, id, (await client.call('getSession', { params: { id } })).lastSeq);
    try {
      const latencies: number[] = [];
      const dispositions = new Set<string>();
      for (let index = 0; index < cancels; index++) {
        const from = stream.position;
        const { turnId } = await client.call('postTurn', { params: { id }, body: { prompt: SLOW_PROMPT } });
        await stream.arrival(firstTextOf(turnId), from, `the first text of ${turnId}`);
        const requestedAt = performance.now();
        const answer = await client.call('cancelTurn', { params: { id, turnId }, body: {} });
        latencies.push(performance.now() - requestedAt);
        dispositions.add(answer.disposition);
        if (!answer.canceled) throw new Error(`bench cancel ${index} did not cancel: ${answer.disposition}`);
        await stream.arrival(doneOf(turnId), from, `the done of ${turnId}`);
      }
      return measuredFigure({
        id: 'host_cancel_latency_p95',
        title: 'cancel mid-stream through the host, POST cancel → response (p95)',
        value: rounded(percentile(latencies, 95), 1),
        unit: 'ms',
        target: null,
        details: {
          cancels,
          p50Ms: rounded(percentile(latencies, 50), 1),
          spread: spreadOf(latencies),
          dispositions: [...dispositions],
        },
      });
    } finally {
      await stream.close();
    }
  } finally {
    await host.stop('SIGTERM');
    killMarkedProcesses(mark);
  }
}
