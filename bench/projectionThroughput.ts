import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionRuntime, startSidecarServer } from '@outrigger/claude-sdk-sidecar';
import { loadSdkFixture, projectionBenchmark } from '@outrigger/claude-sdk-sidecar/bench';
import { encodeRequest, type LineHandlers, type LineTransport, type RequestType } from '@outrigger/protocol';
import { type Figure, measuredFigure } from './figure.ts';
import { ReplayableTurn } from './replayableTurn.ts';
import { ScriptedQuery } from './scriptedQuery.ts';
import { percentile, rounded } from './stats.ts';

const EVENT_LINE = '{"version":10,"type":"';
const TERMINAL_LINE = /^\{"version":10,"type":"turn_(completed|failed|canceled)"/;
/** How long the measured part runs; warm-up turns come first. */
const MEASURE_MS = 2_000;
const WARMUP_TURNS = 200;

/**
 * Figure 1: captured Claude Code turns (streamed text with thinking, text + Bash, a TodoWrite turn with
 * its hook, a TaskCreate/TaskUpdate turn) pushed through the sidecar's own request loop, session runtime,
 * message router, identity barrier and projector into an NDJSON sink, one `exec` per turn. Per-event
 * latency is the time from an SDK message (or hook call) being handed to the runtime to each of its
 * event lines reaching the sink.
 */
export async function measureProjectionThroughput(): Promise<Figure[]> {
  const turns = (['streamed-text', 'text-and-tool', 'todowrite', 'taskcreate-update'] as const).map(
    (name) => new ReplayableTurn(loadSdkFixture(name)),
  );
  const cwd = await mkdtemp(join(tmpdir(), 'outrigger-bench-'));
  let nextTurnIndex = 0;
  let handedOverAt = 0n;
  let measuring = false;
  let events = 0;
  /** The current turn's message stream: from its first hand-over to its terminal event line. */
  let streamStartedAt: bigint | undefined;
  let streamEvents = 0;
  let streamNanos = 0n;
  /** Making each replay's fresh ids happens before its first hand-over; it is the bench's cost, not the sidecar's. */
  let replayNanos = 0n;
  const nextReplay = () => {
    const startedAt = process.hrtime.bigint();
    const entries = turns[nextTurnIndex++ % turns.length]?.replay() ?? [];
    if (measuring) replayNanos += process.hrtime.bigint() - startedAt;
    return entries;
  };
  let latencies: number[] = [];
  let handlers: LineHandlers | undefined;
  const answers = new Map<string, () => void>();
  let turnEnded: ((line: string, streamEvents: number) => void) | undefined;
  /** Events of the running turn's message stream, to check that every replay of a capture does the same work. */
  let turnStreamEvents = 0;

  const transport: LineTransport = {
    start: (lineHandlers) => {
      handlers = lineHandlers;
    },
    send: (line) => {
      if (line.startsWith(EVENT_LINE)) {
        const now = process.hrtime.bigint();
        if (streamStartedAt !== undefined) turnStreamEvents++;
        if (measuring) {
          events++;
          latencies.push(Number(now - handedOverAt) / 1000);
          if (streamStartedAt !== undefined) streamEvents++;
        }
        if (TERMINAL_LINE.test(line)) {
          if (measuring && streamStartedAt !== undefined) streamNanos += now - streamStartedAt;
          streamStartedAt = undefined;
          turnEnded?.(line, turnStreamEvents);
          turnStreamEvents = 0;
        }
        return;
      }
      const id = /"id":"([^"]+)"/.exec(line)?.[1];
      const answer = id === undefined ? undefined : answers.get(id);
      if (!answer || !line.includes('"type":"ok"')) throw new Error(`unexpected sidecar answer: ${line.slice(0, 200)}`);
      answers.delete(id as string);
      answer();
    },
    close: async () => undefined,
  };
  const server = startSidecarServer({
    transport,
    createSession: (payload, emit) =>
      new SessionRuntime({
        payload,
        emit,
        processEnv: { PATH: process.env.PATH },
        queryFactory: (params) =>
          new ScriptedQuery(params, nextReplay, () => {
            handedOverAt = process.hrtime.bigint();
            streamStartedAt ??= handedOverAt;
          }),
        readSessionTitle: async () => undefined,
        resolveTurnIdentity: async () => {
          throw new Error('the scripted echo binds every turn; the transcript is never read');
        },
      }),
    stateless: {
      inspect_fork_checkpoints: async () => ({ providerTurnIds: [] }),
      recover_turn_binding: async () => {
        throw new Error('not used by the bench');
      },
      fork_session: async () => {
        throw new Error('not used by the bench');
      },
    },
  });
  let requestCount = 0;
  const request = (type: RequestType, payload: Record<string, unknown>): Promise<void> =>
    new Promise((resolve) => {
      const id = `bench-${++requestCount}`;
      answers.set(id, resolve);
      handlers?.onLine(encodeRequest(type, payload, id));
    });
  /**
   * Stream events of each capture's second replay: every later replay must do the same work. (The first
   * cycle differs: the session's first `system/init` is reported, later identical ones are not.)
   */
  const eventsPerCapture: number[] = [];
  let turnNumber = 0;
  const runTurn = async (turnId: string): Promise<void> => {
    const ended = new Promise<{ terminal: string; streamEvents: number }>((resolve) => {
      turnEnded = (terminal, streamEvents) => resolve({ terminal, streamEvents });
    });
    await request('exec', { agentSessionId: 'bench', turnId, prompt: 'bench' });
    const { terminal, streamEvents: produced } = await ended;
    if (!terminal.startsWith('{"version":10,"type":"turn_completed"')) {
      throw new Error(`bench turn ${turnId} did not complete: ${terminal.slice(0, 300)}`);
    }
    const capture = turnNumber % turns.length;
    if (turnNumber++ < turns.length) return;
    const expected = eventsPerCapture[capture];
    if (expected === undefined) {
      eventsPerCapture[capture] = produced;
    } else if (produced !== expected) {
      throw new Error(`bench turn ${turnId} projected ${produced} events where earlier replays projected ${expected}`);
    }
  };

  try {
    await request('start', { agentSessionId: 'bench', cwd });
    for (let turn = 0; turn < WARMUP_TURNS; turn++) await runTurn(`warmup-${turn}`);
    latencies = [];
    measuring = true;
    let measuredTurns = 0;
    const started = process.hrtime.bigint();
    let elapsedMs = 0;
    while (elapsedMs < MEASURE_MS) {
      await runTurn(`turn-${measuredTurns++}`);
      elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    }
    measuring = false;
    const eventsPerSecond = streamEvents / (Number(streamNanos) / 1e9);
    const replayMs = Number(replayNanos) / 1e6;
    const sidecarMs = elapsedMs - replayMs;
    const p99Micros = percentile(latencies, 99);
    const projectorOnly = projectionBenchmark(2_000);
    const details = {
      path: 'SDK message → MessageRouter (identity barrier) → StreamProjector → encodeEvent → NDJSON sink',
      turns: measuredTurns,
      streamEvents,
      streamSeconds: rounded(Number(streamNanos) / 1e9),
      withTurnSetup: {
        note: 'the same run wall to wall (exec parsing, prompt dispatch, settle, usage), less the replay cost',
        eventsPerSecond: Math.round(events / (sidecarMs / 1000)),
        microsPerTurn: rounded((sidecarMs * 1000) / measuredTurns, 1),
        events,
        seconds: rounded(sidecarMs / 1000),
      },
      replay: {
        note: 'the bench making fresh uuids and ids per replayed turn (JSON join + parse), outside every figure',
        microsPerTurn: rounded((replayMs * 1000) / measuredTurns, 1),
        renewedIdsPerCycle: turns.reduce((sum, turn) => sum + turn.renewedIds, 0),
      },
      p50Micros: rounded(percentile(latencies, 50)),
      p99Micros: rounded(p99Micros),
      maxMicros: rounded(percentile(latencies, 100)),
      projectorOnly: {
        eventsPerSecond: Math.round(projectorOnly.eventsPerSecond),
        p99MicrosPerMessage: rounded(projectorOnly.p99Micros),
      },
    };
    return [
      measuredFigure({
        id: 'projection_throughput',
        title: 'sidecar projection throughput',
        value: Math.round(eventsPerSecond),
        unit: 'events/s',
        target: { comparison: '>=', value: 200_000 },
        details,
      }),
      measuredFigure({
        id: 'projection_p99',
        title: 'sidecar projection p99 per event',
        value: rounded(p99Micros),
        unit: 'µs',
        target: { comparison: '<', value: 1_000 },
        details: { p50Micros: details.p50Micros, maxMicros: details.maxMicros, events },
      }),
    ];
  } finally {
    handlers?.onClose({ kind: 'input_ended' });
    await server.done;
    await rm(cwd, { recursive: true, force: true });
  }
}
