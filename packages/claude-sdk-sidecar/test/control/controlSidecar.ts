import { type RequestType, type SidecarProtocolError, SidecarRequestError } from '@outrigger/protocol';
import type {
  SentRequest,
  SidecarExit,
  SidecarLogEntry,
  SidecarRequestLine,
} from '../../src/process/sidecarProcess.ts';
import { spawnSidecar } from '../../src/testing/spawnSidecar.ts';
import { type WaitOptions, waitForMatch } from '../../src/testing/waitForMatch.ts';

export type LoggedLine = SidecarLogEntry;

/** The sidecar's answer to one request; error responses are answers too (they do not throw). */
export interface Answer {
  readonly id: string;
  readonly type: 'ok' | 'error';
  readonly payload: Record<string, unknown>;
  /** Position of the answer in the stdout log, to order it against events. */
  readonly index: number;
}

/**
 * A real sidecar process whose requests resolve with the logged answer, so a test can order responses
 * against events by their place in the one stdout log; error responses resolve too.
 */
export interface ControlSidecar {
  readonly pid: number;
  readonly log: readonly LoggedLine[];
  readonly stderrLines: readonly string[];
  readonly protocolErrors: readonly SidecarProtocolError[];
  request(type: RequestType, payload: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<Answer>;
  /** Writes all requests to stdin in one chunk, so the sidecar reads them in the same tick. */
  requestTogether(requests: readonly SidecarRequestLine[], options?: { timeoutMs?: number }): Promise<Answer>[];
  waitFor(predicate: (line: LoggedLine) => boolean, description: string, options?: WaitOptions): Promise<LoggedLine>;
  stop(): Promise<SidecarExit>;
}

export async function startControlSidecar(options: { env: Record<string, string> }): Promise<ControlSidecar> {
  const sidecar = await spawnSidecar({ env: options.env, keepLog: true });
  const { log } = sidecar;

  const answerOf = async ({ id, response }: SentRequest): Promise<Answer> => {
    try {
      await response;
    } catch (error) {
      if (!(error instanceof SidecarRequestError && error.reason === 'error_response')) throw error;
    }
    const line = log.find((entry) => entry.id === id && (entry.type === 'ok' || entry.type === 'error'));
    if (!line) throw new Error(`request ${id} settled without a logged answer`);
    return { id, type: line.type as Answer['type'], payload: line.payload, index: line.index };
  };
  return {
    pid: sidecar.pid,
    log,
    stderrLines: sidecar.stderrLines,
    protocolErrors: sidecar.protocolErrors,
    request: (type, payload, { timeoutMs = 30_000 } = {}) => answerOf(sidecar.send(type, payload, { timeoutMs })),
    requestTogether: (requests, { timeoutMs = 30_000 } = {}) =>
      sidecar.sendTogether(requests, { timeoutMs }).map(answerOf),
    waitFor: (predicate, description, wait) =>
      waitForMatch(log, (wake) => sidecar.onLogEntry(wake), predicate, { timeoutMs: 20_000, description, ...wait }),
    stop: () => sidecar.stop({ timeoutMs: 15_000 }),
  };
}
