import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertNoProcessesLeft, killMarkedProcesses } from '../packages/host/test/harness/processes.ts';
import { spawnServe, testDriverServeEnv } from '../packages/host/test/harness/serveChild.ts';
import { isDoneOf, readEventsUntil } from '../packages/host/test/harness/sseReader.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { childPids, megabytes, residentKilobytes } from './processMemory.ts';
import { rounded } from './stats.ts';

/*
 * Host RSS with 50 sessions: `outrigger serve` as its own process, its sidecar in test-driver mode (scripted
 * sessions, no Claude Code, so the figure is the host's and the sidecar's own memory). 50 sessions are
 * created over HTTP and each runs one turn to its `done`; then the host's VmRSS is read, next to its RSS
 * before any session and the sidecar's.
 */

const SESSIONS = 50;

export async function measureHostMemory(): Promise<Figure[]> {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-bench-host-'));
  const mark = randomUUID();
  const work = join(root, 'work');
  await mkdir(work);
  const host = await spawnServe({
    args: ['--port', '0', '--data-dir', join(root, 'data')],
    env: testDriverServeEnv(root, { OUTRIGGER_LOG_LEVEL: 'warn' }),
    mark,
  });
  try {
    const pid = host.child.pid as number;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idleKb = await residentKilobytes(pid);
    for (let index = 0; index < SESSIONS; index += 1) {
      const { id } = await host.client.call('createSession', { body: { cwd: work, title: `bench ${index}` } });
      const { turnId } = await host.client.call('postTurn', { params: { id }, body: { prompt: `turn ${index}` } });
      await readEventsUntil(host.client, id, isDoneOf(turnId), { timeoutMs: 30_000 });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loadedKb = await residentKilobytes(pid);
    const sidecarKb = (await Promise.all((await childPids(pid)).map((child) => residentKilobytes(child)))).reduce(
      (sum, kb) => sum + kb,
      0,
    );
    return [
      measuredFigure({
        id: 'host_rss_50_sessions',
        title: `host RSS with ${SESSIONS} test-driver sessions (one turn each)`,
        value: rounded(megabytes(loadedKb), 1),
        unit: 'MB',
        target: null,
        details: {
          sessions: SESSIONS,
          idleMb: rounded(megabytes(idleKb), 1),
          perSessionMb: rounded(megabytes(loadedKb - idleKb) / SESSIONS, 3),
          sidecarMb: rounded(megabytes(sidecarKb), 1),
        },
      }),
    ];
  } finally {
    await host.stop('SIGTERM');
    await assertNoProcessesLeft(mark).catch(() => killMarkedProcesses(mark));
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await measureHostMemory(), null, 2)}\n`);
}
