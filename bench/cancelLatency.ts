import { spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import { type CancelResult, SidecarRequestError } from '@outrigger/protocol';
import { type BenchModel, SLOW_PROMPT } from './benchModel.ts';
import { type Figure, measuredFigure, skippedFigure } from './figure.ts';
import { nextEvent, turnTerminal } from './sidecarTurns.ts';
import { percentile, rounded } from './stats.ts';

const TIMEOUT_MS = 60_000;
/** The budgets a host gives a user's cancel; the fast path must not need them. */
const BUDGETS = { interruptTimeoutMs: 2_000, drainTimeoutMs: 2_000 };

const FIGURE = {
  id: 'cancel_latency_p95',
  title: 'cancel mid-stream, request → response (p95)',
  unit: 'ms',
  target: { comparison: '<', value: 100 },
} as const;

/**
 * Figure 4: in one sidecar session against real Claude Code, start a slowly streaming turn, wait for
 * its first assistant delta, then time the `cancel` request until its response. Each cancel retires
 * the Query, so every turn starts a fresh Claude Code; only the cancel itself is timed.
 */
export async function measureCancelLatency(model: BenchModel, cancels: number): Promise<Figure> {
  const sidecar = await spawnSidecarProcess({ env: model.home.env });
  try {
    const agentSessionId = 'bench-cancel';
    await sidecar.client.request('start', { agentSessionId, cwd: model.home.cwd }, { timeoutMs: TIMEOUT_MS });
    const latencies: number[] = [];
    const dispositions = new Set<string>();
    for (let index = 0; index < cancels; index++) {
      const turnId = `cancel-${index}`;
      const streaming = nextEvent(
        sidecar,
        (event) => event.type === 'assistant_delta' && event.payload.turnId === turnId,
        TIMEOUT_MS,
        `first assistant delta of ${turnId}`,
      );
      const ended = turnTerminal(sidecar, turnId, TIMEOUT_MS);
      await sidecar.client.request('exec', { agentSessionId, turnId, prompt: SLOW_PROMPT });
      await streaming;
      const requestedAt = performance.now();
      let result: CancelResult;
      try {
        result = await sidecar.client.request<CancelResult>('cancel', { agentSessionId, turnId, ...BUDGETS });
      } catch (error) {
        if (index === 0 && error instanceof SidecarRequestError && error.reason === 'error_response') {
          return skippedFigure(FIGURE, `the sidecar does not support cancel yet: ${error.message}`);
        }
        throw error;
      }
      latencies.push(performance.now() - requestedAt);
      dispositions.add(result.disposition);
      const terminal = await ended;
      if (terminal.type !== 'turn_canceled') throw new Error(`canceled bench turn ended with ${terminal.type}`);
    }
    await sidecar.client.request('close', { agentSessionId });
    return measuredFigure({
      ...FIGURE,
      value: rounded(percentile(latencies, 95), 1),
      details: {
        cancels,
        p50Ms: rounded(percentile(latencies, 50), 1),
        p95Ms: rounded(percentile(latencies, 95), 1),
        maxMs: rounded(percentile(latencies, 100), 1),
        dispositions: [...dispositions],
        budgets: BUDGETS,
      },
    });
  } finally {
    await sidecar.stop();
  }
}
