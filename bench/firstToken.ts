import { randomUUID } from 'node:crypto';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { PromptQueue } from '@outrigger/claude-sdk-sidecar/bench';
import { type SidecarProcess, spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import { killMarkedProcesses } from '../packages/host/test/harness/processes.ts';
import { type ServeChild, spawnServe } from '../packages/host/test/harness/serveChild.ts';
import type { BenchModel } from './benchModel.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { doneOf, firstTextOf, SessionStream } from './sessionStream.ts';
import { sidecarFirstQueryOptions } from './sidecarQueryOptions.ts';
import { nextEvent, turnTerminal } from './sidecarTurns.ts';
import { median, rounded, spreadOf } from './stats.ts';

const TIMEOUT_MS = 60_000;

/** One turn as its client saw it: from sending the prompt to the first streamed text, and to the turn's end. */
interface TurnTiming {
  firstTokenMs: number;
  turnMs: number;
}

/** A warm path that runs one turn at a time. */
interface Path {
  turn(label: string): Promise<TurnTiming>;
  close(): Promise<void>;
}

const PATHS = ['raw', 'sidecar', 'host'] as const;
type PathName = (typeof PATHS)[number];

/**
 * Time to the first streamed token and turn time on three paths to the same Claude Code and the same
 * scripted answer: a raw SDK `query()` loop with the sidecar's options (partial messages on), the sidecar
 * process (its client sees `assistant_delta`), and the host (`outrigger serve` as a child: `POST turns`, then
 * the session's SSE stream shows the `text` frame and the `done`). Each path is warm (one untimed turn). A
 * round runs one turn on each path, in an order that rotates from round to round, so load that drifts hits
 * all three alike; ratios are medians of the per-round ratios.
 */
export async function measureFirstToken(model: BenchModel, rounds: number): Promise<Figure[]> {
  const mark = randomUUID();
  const paths: Partial<Record<PathName, Path>> = {};
  try {
    paths.raw = await rawPath(model);
    paths.sidecar = await sidecarPath(model);
    paths.host = await hostPath(model, mark);
    for (const name of PATHS) await paths[name]?.turn(`warm-up ${name}`);
    const timings: Record<PathName, TurnTiming[]> = { raw: [], sidecar: [], host: [] };
    for (let round = 0; round < rounds; round++) {
      for (let position = 0; position < PATHS.length; position++) {
        const name = PATHS[(round + position) % PATHS.length] as PathName;
        timings[name].push(await (paths[name] as Path).turn(`${name} round ${round}`));
      }
    }
    const of = (name: PathName, key: keyof TurnTiming) => timings[name].map((timing) => timing[key]);
    const ratios = (name: PathName, key: keyof TurnTiming) =>
      timings[name].map((timing, round) => timing[key] / (timings.raw[round] as TurnTiming)[key]);
    const details = {
      rounds,
      firstTokenMs: Object.fromEntries(PATHS.map((name) => [name, spreadOf(of(name, 'firstTokenMs'))])),
      turnMs: Object.fromEntries(PATHS.map((name) => [name, spreadOf(of(name, 'turnMs'))])),
      firstTokenRatio: {
        sidecar: spreadOf(ratios('sidecar', 'firstTokenMs'), 3),
        host: spreadOf(ratios('host', 'firstTokenMs'), 3),
      },
      turnRatio: { sidecar: spreadOf(ratios('sidecar', 'turnMs'), 3), host: spreadOf(ratios('host', 'turnMs'), 3) },
    };
    return [
      measuredFigure({
        id: 'first_token_host_sse_ms',
        title: 'time to first streamed token, POST turns → first SSE text (median)',
        value: rounded(median(of('host', 'firstTokenMs')), 1),
        unit: 'ms',
        target: null,
        details,
      }),
      measuredFigure({
        id: 'first_token_ratio_host',
        title: 'time to first streamed token, host → SSE / raw query() (median of per-round ratios)',
        value: rounded(median(ratios('host', 'firstTokenMs'))),
        unit: '×',
        target: null,
        details: { firstTokenRatio: details.firstTokenRatio, firstTokenMs: details.firstTokenMs },
      }),
      measuredFigure({
        id: 'turn_time_ratio_host',
        title: 'turn time, host → SSE done / raw query() result (median of per-round ratios)',
        value: rounded(median(ratios('host', 'turnMs'))),
        unit: '×',
        target: { comparison: '<=', value: 1.1 },
        details: { turnRatio: details.turnRatio, turnMs: details.turnMs },
      }),
    ];
  } finally {
    for (const name of PATHS) await paths[name]?.close().catch(() => undefined);
    killMarkedProcesses(mark);
  }
}

async function rawPath(model: BenchModel): Promise<Path> {
  const sessionId = randomUUID();
  const prompts = new PromptQueue();
  const options = await sidecarFirstQueryOptions({
    processEnv: model.home.env,
    agentSessionId: 'bench-first-token',
    cwd: model.home.cwd,
    providerSessionId: sessionId,
  });
  const claude = query({ prompt: prompts, options });
  const messages = claude[Symbol.asyncIterator]();
  await claude.initializationResult();
  return {
    async turn(label) {
      const sentAt = performance.now();
      prompts.push({
        type: 'user',
        uuid: randomUUID(),
        session_id: sessionId,
        parent_tool_use_id: null,
        message: { role: 'user', content: `bench: first token, ${label}` },
      });
      let firstAt: number | undefined;
      const deadline = Date.now() + TIMEOUT_MS;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`raw ${label}: no result within ${TIMEOUT_MS} ms`);
        const next = await messages.next();
        if (next.done) throw new Error('the raw Query ended');
        const message: SDKMessage = next.value;
        if (firstAt === undefined && isTextDelta(message)) firstAt = performance.now();
        if (message.type === 'result') {
          if (message.subtype !== 'success') throw new Error(`raw ${label} ended with ${message.subtype}`);
          const endAt = performance.now();
          return { firstTokenMs: (firstAt ?? endAt) - sentAt, turnMs: endAt - sentAt };
        }
      }
    },
    async close() {
      prompts.close();
      claude.close();
    },
  };
}

function isTextDelta(message: SDKMessage): boolean {
  if (message.type !== 'stream_event') return false;
  const event = message.event as { type?: string; delta?: { type?: string } };
  return event.type === 'content_block_delta' && event.delta?.type === 'text_delta';
}

async function sidecarPath(model: BenchModel): Promise<Path> {
  const sidecar: SidecarProcess = await spawnSidecarProcess({ env: model.home.env });
  const agentSessionId = 'bench-first-token';
  await sidecar.client.request('start', { agentSessionId, cwd: model.home.cwd }, { timeoutMs: TIMEOUT_MS });
  let turns = 0;
  return {
    async turn(label) {
      const turnId = `first-token-${++turns}`;
      let firstAt: number | undefined;
      const first = nextEvent(
        sidecar,
        (event) => event.type === 'assistant_delta' && event.payload.turnId === turnId,
        TIMEOUT_MS,
        `the first delta of ${turnId}`,
      ).then(() => {
        firstAt = performance.now();
      });
      const ended = turnTerminal(sidecar, turnId, TIMEOUT_MS);
      const sentAt = performance.now();
      await sidecar.client.request('exec', { agentSessionId, turnId, prompt: `bench: first token, ${label}` });
      const terminal = await ended;
      const endAt = performance.now();
      await first;
      if (terminal.type !== 'turn_completed') throw new Error(`sidecar ${label} ended with ${terminal.type}`);
      return { firstTokenMs: (firstAt ?? endAt) - sentAt, turnMs: endAt - sentAt };
    },
    async close() {
      await sidecar.client.request('close', { agentSessionId }).catch(() => undefined);
      await sidecar.stop();
    },
  };
}

async function hostPath(model: BenchModel, mark: string): Promise<Path> {
  const host: ServeChild = await spawnServe({
    args: ['--port', '0', '--data-dir', `${model.home.root}/host-data`],
    env: { ...model.home.env, OUTRIGGER_LOG_LEVEL: 'warn' },
    mark,
  });
  const { client } = host;
  const { id } = await client.call('createSession', { body: { cwd: model.home.cwd, title: 'bench first token' } });
  const { lastSeq } = await client.call('getSession', { params: { id } });
  const stream = new SessionStream(client, id, lastSeq);
  return {
    async turn(label) {
      const from = stream.position;
      const sentAt = performance.now();
      const { turnId } = await client.call('postTurn', {
        params: { id },
        body: { prompt: `bench: first token, ${label}` },
      });
      const [firstAt, endAt] = await Promise.all([
        stream.arrival(firstTextOf(turnId), from, `the first text of ${turnId}`),
        stream.arrival(doneOf(turnId), from, `the done of ${turnId}`),
      ]);
      return { firstTokenMs: firstAt - sentAt, turnMs: endAt - sentAt };
    },
    async close() {
      await stream.close();
      await host.stop('SIGTERM');
    },
  };
}
