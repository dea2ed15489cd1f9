import { randomUUID } from 'node:crypto';
import { type Options, query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { PromptQueue } from '@outrigger/claude-sdk-sidecar/bench';
import { spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import type { BenchModel } from './benchModel.ts';
import { type Figure, measuredFigure } from './figure.ts';
import { turnTerminal } from './sidecarTurns.ts';
import { median, rounded } from './stats.ts';

const TURN_TIMEOUT_MS = 60_000;

/** Per-turn wall times of one round, in milliseconds. */
type Round = number[];

/**
 * Figure 3: the same mock-anthropic turns run by a raw SDK `query()` loop (one streaming Query, each
 * turn waits for its result) and through the sidecar (one session, each `exec` waits for
 * `turn_completed`). Start-up is outside the timing in both. The variants alternate for `rounds`
 * rounds; the figure is the ratio of the medians of the per-round mean turn times.
 */
export async function measureTurnOverhead(
  model: BenchModel,
  options: { turns: number; rounds: number },
): Promise<Figure> {
  const raw: Round[] = [];
  const sidecar: Round[] = [];
  for (let round = 0; round < options.rounds; round++) {
    raw.push(await rawQueryRound(model, options.turns, round));
    sidecar.push(await sidecarRound(model, options.turns, round));
  }
  const mean = (times: Round) => times.reduce((sum, time) => sum + time, 0) / times.length;
  const rawMs = median(raw.map(mean));
  const sidecarMs = median(sidecar.map(mean));
  return measuredFigure({
    id: 'turn_overhead_ratio',
    title: `${options.turns}-turn wall time, sidecar / raw query()`,
    value: rounded(sidecarMs / rawMs),
    unit: '×',
    target: { comparison: '<=', value: 1.05 },
    details: {
      turns: options.turns,
      rounds: options.rounds,
      rawMsPerTurn: rounded(rawMs, 1),
      sidecarMsPerTurn: rounded(sidecarMs, 1),
      perRoundMsPerTurn: {
        raw: raw.map((times) => rounded(mean(times), 1)),
        sidecar: sidecar.map((times) => rounded(mean(times), 1)),
      },
      medianTurnMs: {
        raw: rounded(median(raw.flat()), 1),
        sidecar: rounded(median(sidecar.flat()), 1),
      },
    },
  });
}

/** The options the sidecar gives every Query that change what Claude Code does per turn. */
function rawQueryOptions(model: BenchModel, sessionId: string): Options {
  return {
    cwd: model.home.cwd,
    env: model.home.env,
    sessionId,
    systemPrompt: { type: 'preset', preset: 'claude_code' },
    includePartialMessages: true,
    extraArgs: { 'replay-user-messages': null },
  };
}

async function rawQueryRound(model: BenchModel, turns: number, round: number): Promise<Round> {
  const sessionId = randomUUID();
  const prompts = new PromptQueue();
  const claude = query({ prompt: prompts, options: rawQueryOptions(model, sessionId) });
  const messages = claude[Symbol.asyncIterator]();
  try {
    await claude.initializationResult();
    const times: Round = [];
    for (let turn = 0; turn < turns; turn++) {
      const sentAt = performance.now();
      prompts.push({
        type: 'user',
        uuid: randomUUID(),
        session_id: sessionId,
        parent_tool_use_id: null,
        message: { role: 'user', content: `bench: raw round ${round} turn ${turn}` },
      });
      const result = await untilResult(messages);
      if (result.subtype !== 'success') throw new Error(`raw bench turn ended with ${result.subtype}`);
      times.push(performance.now() - sentAt);
    }
    return times;
  } finally {
    prompts.close();
    claude.close();
  }
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

async function sidecarRound(model: BenchModel, turns: number, round: number): Promise<Round> {
  const sidecar = await spawnSidecarProcess({ env: model.home.env });
  try {
    const agentSessionId = `bench-${round}`;
    await sidecar.client.request('start', { agentSessionId, cwd: model.home.cwd }, { timeoutMs: TURN_TIMEOUT_MS });
    const times: Round = [];
    for (let turn = 0; turn < turns; turn++) {
      const turnId = `round-${round}-turn-${turn}`;
      const ended = turnTerminal(sidecar, turnId, TURN_TIMEOUT_MS);
      const sentAt = performance.now();
      await sidecar.client.request('exec', {
        agentSessionId,
        turnId,
        prompt: `bench: sidecar round ${round} turn ${turn}`,
      });
      const terminal = await ended;
      if (terminal.type !== 'turn_completed') throw new Error(`sidecar bench turn ended with ${terminal.type}`);
      times.push(performance.now() - sentAt);
    }
    await sidecar.client.request('close', { agentSessionId });
    return times;
  } finally {
    await sidecar.stop();
  }
}
