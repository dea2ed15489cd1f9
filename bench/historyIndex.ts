import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import { ClaudeHistory } from '../packages/host/src/history/claudeHistory.ts';
import { writeHistory, writeTranscript } from '../packages/host/src/history/testing/generatedHistory.ts';
import { SqliteHostStore } from '../packages/host/src/store/sqlite/sqliteHostStore.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { median, rounded, spreadOf } from './stats.ts';

/*
 * Claude Code's history (issue 19) over a generated one: 2,000 transcripts in Claude Code 2.1's format, 20
 * projects of 100, over 200 MB, plus one 5,000-message transcript. Through `ClaudeHistory` with the real SDK in
 * its worker thread and the SQLite store on disk, as the host runs it: the first index (an empty store), the
 * list once indexed, the first page of the long transcript (the transcript reader of `transcriptContent.ts`),
 * and the host process's CPU over 10 s with the watch on and nothing changing.
 */

const PROJECTS = 20;
const SESSIONS_PER_PROJECT = 100;
const MESSAGES_PER_SESSION = 60;
const TEXT_BYTES = 1_700;
const LONG_MESSAGES = 5_000;
const LIST_CALLS = 15;
const IDLE_MS = 10_000;

export async function measureHistory(): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-bench-history-'));
  const configDir = join(dir, 'config');
  const projectsRoot = join(dir, 'work');
  const store = SqliteHostStore.open({ path: join(dir, 'host.db') });
  let history: ClaudeHistory | undefined;
  try {
    const written = await writeHistory(configDir, {
      projects: PROJECTS,
      sessionsPerProject: SESSIONS_PER_PROJECT,
      messagesPerSession: MESSAGES_PER_SESSION,
      textBytes: TEXT_BYTES,
      projectsRoot,
    });
    const long = await writeTranscript(configDir, {
      cwd: join(projectsRoot, 'long'),
      messages: LONG_MESSAGES,
      textBytes: 800,
      startedAt: Date.UTC(2026, 10, 1),
    });
    const transcripts = written.length + 1;
    const bytes = written.reduce((sum, each) => sum + each.bytes, long.bytes);

    history = new ClaudeHistory({ configDir, sdk: claudeHistorySdk(configDir), store, allowRoots: [dir] });
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await history.list();
    await history.indexed();
    const firstIndexMs = performance.now() - started;
    const firstIndexCpu = process.cpuUsage(cpuBefore);

    const listMs: number[] = [];
    let listed = 0;
    for (let call = 0; call < LIST_CALLS; call += 1) {
      const at = performance.now();
      listed = (await history.list()).total;
      listMs.push(performance.now() - at);
    }

    const pageAt = performance.now();
    const page = await history.page(long.sessionId, {});
    const firstPageMs = performance.now() - pageAt;
    const againAt = performance.now();
    await history.page(long.sessionId, {});
    const cachedPageMs = performance.now() - againAt;

    // Idle: the watch is on, nothing changes (the SDK worker retires by itself 30 s after its last call).
    const idleBefore = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = process.cpuUsage(idleBefore);
    const idleCpuMs = (idle.user + idle.system) / 1000;

    const common = { transcripts, megabytes: rounded(bytes / 1e6, 1), projects: PROJECTS + 1 };
    return [
      measuredFigure({
        id: 'history_first_index_ms',
        title: `first index of ${transcripts} transcripts (${common.megabytes} MB), empty store`,
        value: Math.round(firstIndexMs),
        unit: 'ms',
        target: { comparison: '<', value: 10_000 },
        details: {
          ...common,
          cpuMs: Math.round((firstIndexCpu.user + firstIndexCpu.system) / 1000),
          indexed: (await store.listHistoryTranscripts()).length,
        },
      }),
      measuredFigure({
        id: 'history_list_p50_ms',
        title: `list of ${listed} sessions once indexed, median of ${LIST_CALLS}`,
        value: rounded(median(listMs), 1),
        unit: 'ms',
        target: { comparison: '<', value: 300 },
        details: { ...common, spread: spreadOf(listMs) },
      }),
      measuredFigure({
        id: 'history_first_page_ms',
        title: `first page of a ${LONG_MESSAGES}-message transcript (${rounded(long.bytes / 1e6, 1)} MB)`,
        value: Math.round(firstPageMs),
        unit: 'ms',
        target: { comparison: '<', value: 200 },
        details: {
          rows: page?.totalRows ?? null,
          pageRows: page?.page.messages.length ?? null,
          notes: page?.notes.map((note) => note.kind) ?? null,
          cachedPageMs: rounded(cachedPageMs, 1),
        },
      }),
      measuredFigure({
        id: 'history_idle_cpu_ms',
        title: `host CPU over ${IDLE_MS / 1000} s idle with the watch on`,
        value: rounded(idleCpuMs, 1),
        unit: 'ms',
        target: { comparison: '<=', value: 50 },
        details: { idleMs: IDLE_MS },
      }),
    ];
  } finally {
    await history?.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
