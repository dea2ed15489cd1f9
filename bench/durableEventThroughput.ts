import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommitPublisher } from '../packages/host/src/events/commitPublisher.ts';
import { EventHub } from '../packages/host/src/events/eventHub.ts';
import { eventDataJson } from '../packages/host/src/store/eventJson.ts';
import type { SessionEventDraft, WriteUnit } from '../packages/host/src/store/hostStore.ts';
import { SqliteHostStore } from '../packages/host/src/store/sqlite/sqliteHostStore.ts';
import { testSession } from '../packages/host/src/store/testRecords.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { percentile, rounded } from './stats.ts';

/*
 * Durable events through the host's store and event hub, without HTTP: each event is committed to
 * SQLite (a file in the temp dir, WAL, synchronous=NORMAL) and then handed by the hub to 10 streams,
 * each serializing every event as its SSE `data:` line would. The HTTP/SSE figure of the edge
 * (`durable events to 10 SSE clients`) builds on this one.
 *
 * - single: one event per transaction, the producer waiting for each commit (the slowest way to write).
 * - batched: bursts of 64 events (what one sidecar stdout chunk carries) committed as one unit.
 * - paced: events offered at 20k/s in 1 ms ticks, each its own unit through the CommitPublisher's
 *   group commit; latency is offered → received by each of the 10 streams (the p99 target).
 */

const CLIENTS = 10;
const SINGLE_EVENTS = 20_000;
const BATCHED_EVENTS = 100_000;
const BATCH = 64;
export const PACED_RATE = 20_000;
export const PACED_SECONDS = 3;

export async function measureDurableEventThroughput(): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-bench-store-'));
  try {
    const single = await run(join(dir, 'single.db'), SINGLE_EVENTS, { groupCommit: false }, (produce) =>
      produceSequential(produce, SINGLE_EVENTS, 1),
    );
    const batched = await run(join(dir, 'batched.db'), BATCHED_EVENTS, { groupCommit: false }, (produce) =>
      produceSequential(produce, BATCHED_EVENTS, BATCH),
    );
    const paced = await run(join(dir, 'paced.db'), PACED_RATE * PACED_SECONDS, { groupCommit: true }, producePaced);
    const details = { clients: CLIENTS, single, batched, paced };
    return [
      measuredFigure({
        id: 'durable_events_throughput',
        title: `durable events/s to ${CLIENTS} streams (batched ${BATCH}/tx)`,
        value: batched.eventsPerSecond,
        unit: 'events/s',
        target: { comparison: '>=', value: 20_000 },
        details,
      }),
      measuredFigure({
        id: 'durable_events_single_throughput',
        title: `durable events/s to ${CLIENTS} streams (1 event/tx)`,
        value: single.eventsPerSecond,
        unit: 'events/s',
        target: null,
        details: {},
      }),
      measuredFigure({
        id: 'durable_events_publish_p99',
        title: `offered → ${CLIENTS} streams at ${PACED_RATE / 1000}k events/s, p99`,
        value: paced.p99Ms,
        unit: 'ms',
        target: { comparison: '<', value: 20 },
        details: {},
      }),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface RunResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  slowConsumers: number;
}

/** Offers one burst of events; resolves when they are committed and published. */
export type Produce = (count: number) => Promise<void>;

async function run(
  path: string,
  expected: number,
  options: { groupCommit: boolean },
  producer: (produce: Produce) => Promise<void>,
): Promise<RunResult> {
  const store = SqliteHostStore.open({ path });
  await store.commit({ sessions: [testSession('bench')] });
  const hub = new EventHub(store, { maxBuffered: 100_000 });
  const publisher = new CommitPublisher(store, hub, options);
  const offeredAt: number[] = [0];
  const latencies: number[] = [];
  let n = 0;
  let done: () => void = () => {};
  const allReceived = new Promise<void>((resolve) => {
    done = resolve;
  });
  let finishedClients = 0;
  const clients = Array.from({ length: CLIENTS }, async () => {
    const stream = hub.openSessionStream('bench', 0);
    let bytes = 0;
    for await (const event of stream) {
      bytes += eventDataJson(event).length;
      latencies.push(performance.now() - offeredAt[event.data.seq]!);
      if (event.data.seq === expected) break;
    }
    finishedClients += 1;
    if (finishedClients === CLIENTS) done();
    return { bytes, ended: await stream.ended };
  });
  const produce: Produce = async (count) => {
    const drafts: SessionEventDraft[] = [];
    const now = performance.now();
    for (let i = 0; i < count; i += 1) {
      n += 1;
      offeredAt[n] = now;
      drafts.push(draft(n));
    }
    await publisher.commit({ sessionEvents: drafts } satisfies WriteUnit);
  };
  const startedAt = performance.now();
  await producer(produce);
  if (n !== expected) throw new Error(`produced ${n} events, expected ${expected}`);
  await publisher.drain();
  await allReceived;
  const seconds = (performance.now() - startedAt) / 1000;
  const outcomes = await Promise.all(clients);
  hub.shutdown();
  await store.close();
  return {
    events: n,
    seconds: rounded(seconds),
    eventsPerSecond: Math.round(n / seconds),
    p50Ms: rounded(percentile(latencies, 50)),
    p99Ms: rounded(percentile(latencies, 99)),
    maxMs: rounded(percentile(latencies, 100)),
    slowConsumers: outcomes.filter((outcome) => outcome.ended === 'slow_consumer').length,
  };
}

export async function produceSequential(produce: Produce, events: number, batch: number): Promise<void> {
  for (let sent = 0; sent < events; sent += batch) await produce(Math.min(batch, events - sent));
}

/** `PACED_RATE` events a second, one unit per event, in 1 ms ticks: what a busy sidecar looks like. */
export async function producePaced(produce: Produce): Promise<void> {
  const perTick = PACED_RATE / 1000;
  const ticks = PACED_SECONDS * 1000;
  const startedAt = performance.now();
  const pending: Promise<void>[] = [];
  for (let tick = 0; tick < ticks; tick += 1) {
    for (let i = 0; i < perTick; i += 1) pending.push(produce(1));
    const wait = startedAt + (tick + 1) - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    else await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(pending);
}

/** A streamed text delta as the projector writes it (about 200 bytes stored). */
export function draft(n: number): SessionEventDraft {
  return {
    type: 'text',
    data: {
      session_id: 'bench',
      turnId: 'turn-0123456789abcdef',
      messageId: 'assistant:msg_0123456789abcdef:0',
      delta: `word ${n} of a streamed answer, `,
      final: false,
      interrupted: false,
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await measureDurableEventThroughput();
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
