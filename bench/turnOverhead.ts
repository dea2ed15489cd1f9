import { randomUUID } from 'node:crypto';
import { type Options, query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { PromptQueue } from '@outrigger/claude-sdk-sidecar/bench';
import { spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import type { BenchModel } from './benchModel.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { sidecarFirstQueryOptions } from './sidecarQueryOptions.ts';
import { completeTurn } from './sidecarTurns.ts';
import { median, rounded } from './stats.ts';

const TURN_TIMEOUT_MS = 60_000;

/** Per-turn wall times of one round, in milliseconds. */
type Round = number[];

/**
 * The two raw `query()` loops the sidecar is compared with. `minimal` asks Claude Code for nothing beyond
 * the offline home. `equivalent` gets the options and env the sidecar's runtime builds for its first Query
 * (partial messages, hook events, prompt echo, a PostToolUse hook, a `canUseTool` callback, the preset
 * system prompt, the forced env), from the runtime's own builders, so the ratio against it measures the
 * sidecar's own layer rather than Claude Code features the product needs.
 */
const RAW_VARIANTS = {
  minimal: async (model: BenchModel): Promise<Options> => ({ cwd: model.home.cwd, env: model.home.env }),
  equivalent: (model: BenchModel, sessionId: string): Promise<Options> =>
    sidecarFirstQueryOptions({
      processEnv: model.home.env,
      agentSessionId: 'bench-raw',
      cwd: model.home.cwd,
      providerSessionId: sessionId,
    }),
} satisfies Record<string, (model: BenchModel, sessionId: string) => Promise<Options>>;
type RawVariant = keyof typeof RAW_VARIANTS;

/** One variant's live session, kept for a whole round: it runs one timed turn at a time. */
interface TurnRunner {
  turn(prompt: string): Promise<void>;
  close(): Promise<void>;
}

const VARIANTS = ['minimal', 'equivalent', 'sidecar'] as const;
type Variant = (typeof VARIANTS)[number];

/**
 * Figure 4: the same mock-anthropic turns run by two raw SDK `query()` loops (one streaming Query each,
 * every turn waits for its result) and through the sidecar (one session, each `exec` waits for
 * `turn_completed`). A round starts all three and gives each an untimed first turn (a Query's first turn
 * is slower), then alternates them turn by turn, in an order that rotates every turn, so a load change on
 * the shared machine hits all three alike instead of whichever ran during it. Only one runs a turn at a
 * time. A ratio is the median over rounds of the ratio of that round's mean turn times. The target
 * applies to the ratio against the equivalent-options loop.
 */
export async function measureTurnOverhead(
  model: BenchModel,
  options: { turns: number; rounds: number },
): Promise<Figure[]> {
  const rounds: Record<Variant, Round[]> = { minimal: [], equivalent: [], sidecar: [] };
  for (let round = 0; round < options.rounds; round++) {
    const times = await interleavedRound(model, options.turns, round);
    for (const variant of VARIANTS) rounds[variant].push(times[variant]);
  }
  const mean = (times: Round) => times.reduce((sum, time) => sum + time, 0) / times.length;
  const msPerTurn = (variant: keyof typeof rounds) => median(rounds[variant].map(mean));
  const roundRatios = (raw: RawVariant) =>
    rounds.sidecar.map((times, round) => mean(times) / mean(rounds[raw][round] as Round));
  /** What the sidecar adds to each turn of a round, in milliseconds: the ratio's numerator minus its denominator. */
  const roundAddedMs = (raw: RawVariant) =>
    rounds.sidecar.map((times, round) => mean(times) - mean(rounds[raw][round] as Round));
  const details = {
    turns: options.turns,
    rounds: options.rounds,
    msPerTurn: {
      rawMinimal: rounded(msPerTurn('minimal'), 1),
      rawEquivalent: rounded(msPerTurn('equivalent'), 1),
      sidecar: rounded(msPerTurn('sidecar'), 1),
    },
    perRoundMsPerTurn: {
      rawMinimal: rounds.minimal.map((times) => rounded(mean(times), 1)),
      rawEquivalent: rounds.equivalent.map((times) => rounded(mean(times), 1)),
      sidecar: rounds.sidecar.map((times) => rounded(mean(times), 1)),
    },
    perRoundRatio: {
      sameOptions: roundRatios('equivalent').map((ratio) => rounded(ratio)),
      minimalOptions: roundRatios('minimal').map((ratio) => rounded(ratio)),
    },
    addedMsPerTurn: {
      sameOptions: rounded(median(roundAddedMs('equivalent')), 2),
      minimalOptions: rounded(median(roundAddedMs('minimal')), 2),
    },
    perRoundAddedMs: {
      sameOptions: roundAddedMs('equivalent').map((ms) => rounded(ms, 2)),
      minimalOptions: roundAddedMs('minimal').map((ms) => rounded(ms, 2)),
    },
    medianTurnMs: {
      rawMinimal: rounded(median(rounds.minimal.flat()), 1),
      rawEquivalent: rounded(median(rounds.equivalent.flat()), 1),
      sidecar: rounded(median(rounds.sidecar.flat()), 1),
    },
  };
  return [
    measuredFigure({
      id: 'turn_overhead_ratio',
      title: `${options.turns}-turn wall time, sidecar / raw query() with the same options`,
      value: rounded(median(roundRatios('equivalent'))),
      unit: '×',
      target: { comparison: '<=', value: 1.05 },
      details,
    }),
    measuredFigure({
      id: 'turn_overhead_added_ms',
      title: `${options.turns}-turn wall time, what the sidecar adds per turn over raw query() with the same options`,
      value: details.addedMsPerTurn.sameOptions,
      unit: 'ms',
      target: null,
      details: {
        perRoundAddedMs: details.perRoundAddedMs.sameOptions,
        note: 'median over rounds of (sidecar mean turn time − raw mean turn time) of the same round',
      },
    }),
    measuredFigure({
      id: 'turn_overhead_ratio_minimal',
      title: `${options.turns}-turn wall time, sidecar / raw query() with minimal options`,
      value: rounded(median(roundRatios('minimal'))),
      unit: '×',
      target: null,
      details: {
        msPerTurn: details.msPerTurn,
        perRoundRatio: details.perRoundRatio.minimalOptions,
        addedMsPerTurn: details.addedMsPerTurn.minimalOptions,
      },
    }),
  ];
}

async function interleavedRound(model: BenchModel, turns: number, round: number): Promise<Record<Variant, Round>> {
  const runners: Partial<Record<Variant, TurnRunner>> = {};
  try {
    for (const variant of VARIANTS) {
      const runner = variant === 'sidecar' ? await sidecarRunner(model, round) : await rawRunner(model, variant);
      runners[variant] = runner;
      await runner.turn(`bench: ${variant} round ${round} warm-up`);
    }
    const times: Record<Variant, Round> = { minimal: [], equivalent: [], sidecar: [] };
    for (let turn = 0; turn < turns; turn++) {
      for (let position = 0; position < VARIANTS.length; position++) {
        const variant = VARIANTS[(round + turn + position) % VARIANTS.length] as Variant;
        const sentAt = performance.now();
        await (runners[variant] as TurnRunner).turn(`bench: ${variant} round ${round} turn ${turn}`);
        times[variant].push(performance.now() - sentAt);
      }
    }
    return times;
  } finally {
    await Promise.all(Object.values(runners).map((runner) => runner.close()));
  }
}

async function rawRunner(model: BenchModel, variant: RawVariant): Promise<TurnRunner> {
  const sessionId = randomUUID();
  const prompts = new PromptQueue();
  const claude = query({ prompt: prompts, options: await RAW_VARIANTS[variant](model, sessionId) });
  const messages = claude[Symbol.asyncIterator]();
  try {
    await claude.initializationResult();
  } catch (error) {
    prompts.close();
    claude.close();
    throw error;
  }
  return {
    turn: async (prompt) => {
      prompts.push({
        type: 'user',
        uuid: randomUUID(),
        session_id: sessionId,
        parent_tool_use_id: null,
        message: { role: 'user', content: prompt },
      });
      const result = await untilResult(messages);
      if (result.subtype !== 'success') throw new Error(`raw bench turn ended with ${result.subtype}`);
    },
    close: async () => {
      prompts.close();
      claude.close();
    },
  };
}

async function untilResult(messages: AsyncIterator<SDKMessage>): Promise<Extract<SDKMessage, { type: 'result' }>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no result within ${TURN_TIMEOUT_MS} ms`)), TURN_TIMEOUT_MS);
  });
  try {
    for (;;) {
      const next = await Promise.race([messages.next(), deadline]);
      if (next.done) throw new Error('the raw Query ended before the result');
      if (next.value.type === 'result') return next.value;
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The settled refresh (context usage and title, read once a session has been quiet for 250 ms after a
 * result) is put off to 5 s: between interleaved turns a session waits for the other two variants' turns,
 * longer than 250 ms when the machine is loaded, and the refresh would then land in the middle of timed
 * turns, as it never does in a back-to-back run. Its cost to a prompt that meets it is in docs/sidecar.md.
 */
const SIDECAR_BENCH_ENV = { OUTRIGGER_SIDECAR_SETTLED_REFRESH_QUIET_MS: '5000' };

async function sidecarRunner(model: BenchModel, round: number): Promise<TurnRunner> {
  const sidecar = await spawnSidecarProcess({ env: { ...model.home.env, ...SIDECAR_BENCH_ENV } });
  const agentSessionId = `bench-${round}`;
  try {
    await sidecar.client.request('start', { agentSessionId, cwd: model.home.cwd }, { timeoutMs: TURN_TIMEOUT_MS });
  } catch (error) {
    await sidecar.stop();
    throw error;
  }
  let turns = 0;
  return {
    turn: (prompt) =>
      completeTurn(sidecar, { agentSessionId, turnId: `round-${round}-turn-${turns++}`, prompt }, TURN_TIMEOUT_MS),
    close: async () => {
      await sidecar.client.request('close', { agentSessionId }).catch(() => undefined);
      await sidecar.stop();
    },
  };
}
