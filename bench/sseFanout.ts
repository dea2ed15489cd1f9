import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { CommitPublisher } from '../packages/host/src/events/commitPublisher.ts';
import { EventHub } from '../packages/host/src/events/eventHub.ts';
import { createHostApp } from '../packages/host/src/http/hostApp.ts';
import { listenHost } from '../packages/host/src/http/httpServer.ts';
import { FakeHostService } from '../packages/host/src/http/testing/fakeHostService.ts';
import { silentLogger } from '../packages/host/src/logging/hostLogger.ts';
import type { SessionEventDraft } from '../packages/host/src/store/hostStore.ts';
import { SqliteHostStore } from '../packages/host/src/store/sqlite/sqliteHostStore.ts';
import { testSession } from '../packages/host/src/store/testRecords.ts';
import type { SessionEvent } from '../packages/host-api/src/index.ts';
import {
  draft,
  PACED_RATE,
  PACED_SECONDS,
  type Produce,
  producePaced,
  produceSequential,
} from './durableEventThroughput.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { percentile, rounded } from './stats.ts';

/*
 * Durable events to 10 SSE clients over HTTP: each event is committed to SQLite (WAL,
 * synchronous=NORMAL), handed by the event hub to the host's SSE route, and read and parsed by 10
 * HTTP clients running in a worker thread (so their parsing does not share the host's thread).
 *
 * - burst: 100k events in units of 64 (what one sidecar stdout chunk carries), as fast as they commit;
 *   events/s = all 10 clients have the last one.
 * - paced: 20k events/s offered one unit per event in 1 ms ticks (group commit), for 3 s. Publish latency
 *   (the p99 target) is offered → taken from the hub by each client's SSE route and written to its socket;
 *   the clients' own figure, offered → read in the worker, adds the kernel and that thread's scheduling on a
 *   shared 2-core machine, and is recorded beside it.
 */

const CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 10);
const BURST_EVENTS = 100_000;
const BATCH = 64;
const TOKEN = 'bench-token-0123456789abcdefghijklmnopqrstuvwxyz';

interface ClientResult {
  /** Absolute receive time (ms since the epoch) of each seq, per client. */
  received: Float64Array[];
  endReasons: string[];
}

export async function measureSseFanout(): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-bench-sse-'));
  try {
    const burst = await run(join(dir, 'burst.db'), BURST_EVENTS, false, (produce) =>
      produceSequential(produce, BURST_EVENTS, BATCH),
    );
    const paced = await run(join(dir, 'paced.db'), PACED_RATE * PACED_SECONDS, true, producePaced);
    const details = { clients: CLIENTS, batch: BATCH, pacedRate: PACED_RATE, burst, paced };
    return [
      measuredFigure({
        id: 'sse_fanout_throughput',
        title: `durable events/s to ${CLIENTS} SSE clients over HTTP (${BATCH}/tx)`,
        value: burst.eventsPerSecond,
        unit: 'events/s',
        target: { comparison: '>=', value: 20_000 },
        details,
      }),
      measuredFigure({
        id: 'sse_fanout_publish_p99',
        title: `offered → written to ${CLIENTS} SSE sockets at ${PACED_RATE / 1000}k events/s, p99`,
        value: paced.hostP99Ms,
        unit: 'ms',
        target: { comparison: '<', value: 20 },
        details: {},
      }),
      measuredFigure({
        id: 'sse_fanout_client_p99',
        title: `offered → read by ${CLIENTS} SSE clients (one worker thread) at ${PACED_RATE / 1000}k events/s, p99`,
        value: paced.p99Ms,
        unit: 'ms',
        target: null,
        details: {},
      }),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function run(
  path: string,
  expected: number,
  groupCommit: boolean,
  producer: (produce: Produce) => Promise<void>,
) {
  const offeredAt = new Float64Array(expected + 1);
  const store = SqliteHostStore.open({ path });
  await store.commit({ sessions: [testSession('bench')] });
  // Large enough that a client the producer outruns in a burst is not cut: this measures throughput, not the cut.
  const hub = new EventHub(store, { maxBuffered: 200_000 });
  const publisher = new CommitPublisher(store, hub, { groupCommit });
  const service = new FakeHostService();
  // When the SSE route takes each event from the hub (it writes it to the socket right then): the host's
  // own share of the latency, without the clients' thread.
  // Stamped in the iterator's `next()` (no async layer of its own, so the stamp costs the host little).
  const handedOut = new Float64Array(expected * CLIENTS);
  let handed = 0;
  service.openSessionStream = (sessionId, afterSeq) => {
    const stream = hub.openSessionStream(sessionId, afterSeq);
    const iterator = stream[Symbol.asyncIterator]();
    const stamp = (result: IteratorResult<SessionEvent>) => {
      if (result.done !== true && handed < handedOut.length) {
        handedOut[handed++] = performance.timeOrigin + performance.now() - offeredAt[result.value.data.seq]!;
      }
      return result;
    };
    return {
      ended: stream.ended,
      close: () => stream.close(),
      [Symbol.asyncIterator]: () => ({
        next: () => iterator.next().then(stamp),
        return: async () => {
          stream.close();
          return { done: true as const, value: undefined };
        },
      }),
    };
  };
  const server = await listenHost('127.0.0.1', 0, (port) =>
    createHostApp({ service, logger: silentLogger, security: { token: () => TOKEN, port, boundHost: '127.0.0.1' } }),
  );
  const worker = new Worker(fileURLToPath(import.meta.url), {
    workerData: { port: server.port, expected, clients: CLIENTS },
  });
  const results = new Promise<ClientResult>((resolve, reject) => {
    worker.once('message', (message: ClientResult) => resolve(message));
    worker.once('error', reject);
  });
  await new Promise<void>((resolve) => {
    const wait = () => (hub.streamCount >= CLIENTS ? resolve() : setTimeout(wait, 5));
    wait();
  });
  let n = 0;
  const produce: Produce = async (count) => {
    const drafts: SessionEventDraft[] = [];
    const now = performance.timeOrigin + performance.now();
    for (let index = 0; index < count; index += 1) {
      n += 1;
      offeredAt[n] = now;
      drafts.push(draft(n));
    }
    await publisher.commit({ sessionEvents: drafts });
  };
  const startedAt = performance.timeOrigin + performance.now();
  await producer(produce);
  await publisher.drain();
  const { received, endReasons } = await results;
  await worker.terminate();
  hub.shutdown();
  await server.close(100);
  await store.close();
  // A seq a client never got reads as 0 (its array's default): its latency would be negative and the
  // throughput counted over fewer events. A cut client is a failed run, not a figure.
  const cut = endReasons.filter((reason) => reason !== 'complete');
  if (cut.length > 0)
    throw new Error(`${cut.length} of ${CLIENTS} SSE clients did not get all ${expected} events: ${cut.join('; ')}`);
  const lastAt = Math.max(...received.map((times) => times[expected] as number));
  const latencies: number[] = [];
  for (const times of received)
    for (let seq = 1; seq <= expected; seq += 1) latencies.push(times[seq]! - offeredAt[seq]!);
  return {
    events: expected,
    seconds: rounded((lastAt - startedAt) / 1000),
    eventsPerSecond: Math.round(expected / ((lastAt - startedAt) / 1000)),
    p50Ms: rounded(percentile(latencies, 50)),
    p99Ms: rounded(percentile(latencies, 99)),
    maxMs: rounded(percentile(latencies, 100)),
    /** Offered → taken from the hub by the SSE route (and written to the socket), all clients. */
    hostP99Ms: rounded(percentile([...handedOut.subarray(0, handed)], 99)),
  };
}

/**
 * The worker: CLIENTS SSE readers over plain node:http. Each finds frame ids in the bytes as they arrive
 * and stamps them with the chunk's arrival time; it does not parse payloads, so the figure is what the
 * host delivers, not what one thread can parse for ten clients (a browser tab parses only its own).
 */
async function clientsMain(data: { port: number; expected: number; clients: number }): Promise<void> {
  const readers = Array.from(
    { length: data.clients },
    () =>
      new Promise<{ received: Float64Array; reason: string }>((resolve) => {
        const received = new Float64Array(data.expected + 1);
        let carry = '';
        let reason = 'ended early';
        const request = httpRequest(
          `http://127.0.0.1:${data.port}/api/sessions/bench/events`,
          { headers: { authorization: `Bearer ${TOKEN}` } },
          (response) => {
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              const now = performance.timeOrigin + performance.now();
              const text = carry + chunk;
              let at = text.indexOf('id: ');
              let last = 0;
              while (at !== -1) {
                const end = text.indexOf('\n', at);
                if (end === -1) break;
                const seq = Number(text.slice(at + 4, end));
                received[seq] = now;
                last = end;
                if (seq === data.expected) {
                  reason = 'complete';
                  request.destroy();
                  resolve({ received, reason });
                  return;
                }
                at = text.indexOf('id: ', end);
              }
              carry = text.slice(last);
            });
            response.on('end', () => resolve({ received, reason }));
          },
        );
        request.on('error', (error) => resolve({ received, reason: `cut: ${error.message}` }));
        request.end();
      }),
  );
  const outcomes = await Promise.all(readers);
  parentPort?.postMessage({
    received: outcomes.map((outcome) => outcome.received),
    endReasons: outcomes.map((outcome) => outcome.reason),
  } satisfies ClientResult);
}

if (!isMainThread) {
  await clientsMain(workerData);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await measureSseFanout(), null, 2)}\n`);
}
