import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  createStdioLineTransport,
  type LineTransport,
  parseSidecarLine,
  type RequestType,
  SidecarClient,
  type SidecarProtocolError,
  SidecarRequestError,
} from '@outrigger/protocol';

const MAIN_PATH = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** One line the sidecar wrote to stdout, in the order it was written: an event, or a response (`ok`/`error` with an id). */
export interface LoggedLine {
  readonly index: number;
  readonly type: string;
  readonly id: string | undefined;
  readonly payload: Record<string, unknown>;
}

/** The sidecar's answer to one request; error responses are answers too (they do not throw). */
export interface Answer {
  readonly id: string;
  readonly type: 'ok' | 'error';
  readonly payload: Record<string, unknown>;
  /** Position of the answer in the stdout log, to order it against events. */
  readonly index: number;
}

export interface OutgoingRequest {
  readonly type: RequestType;
  readonly payload: Record<string, unknown>;
}

export interface WaitOptions {
  timeoutMs?: number;
  /** Only lines at or after this log index count. */
  from?: number;
}

/**
 * A real `node src/main.ts` driven through the protocol client, keeping one ordered log of everything it
 * writes, so a test can tell whether an event came before or after a response. Unlike the shared
 * `spawnSidecar` helper it exposes that order and the request ids, which cancel ordering and the
 * diagnostics assertions need.
 */
export interface ControlSidecar {
  readonly pid: number;
  readonly log: readonly LoggedLine[];
  readonly stderrLines: readonly string[];
  readonly protocolErrors: readonly SidecarProtocolError[];
  request(type: RequestType, payload: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<Answer>;
  /** Writes all requests to stdin in one chunk, so the sidecar reads them in the same tick. */
  requestTogether(requests: readonly OutgoingRequest[], options?: { timeoutMs?: number }): Promise<Answer>[];
  waitFor(predicate: (line: LoggedLine) => boolean, description: string, options?: WaitOptions): Promise<LoggedLine>;
  close(timeoutMs?: number): Promise<void>;
  kill(): void;
}

export async function startControlSidecar(options: { env: Record<string, string> }): Promise<ControlSidecar> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [MAIN_PATH], {
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  await once(child, 'spawn');
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  const stderrLines: string[] = [];
  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const lines = (stderrTail + chunk).split('\n');
    stderrTail = lines.pop() ?? '';
    stderrLines.push(...lines);
  });

  const log: LoggedLine[] = [];
  const wakers = new Set<() => void>();
  const record = (line: string): void => {
    const parsed = parseSidecarLine(line);
    if (parsed.kind !== 'message') return;
    const { type, id, payload } = parsed.message;
    const entry: LoggedLine = {
      index: log.length,
      type,
      id,
      payload: typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {},
    };
    log.push(entry);
    for (const wake of wakers) wake();
  };
  const transport = tapLines(createStdioLineTransport({ input: child.stdout, output: child.stdin }), record);

  let lastRequestId = '';
  const client = new SidecarClient(transport, {
    defaultTimeoutMs: 30_000,
    createRequestId: () => {
      lastRequestId = randomUUID();
      return lastRequestId;
    },
  });
  const protocolErrors: SidecarProtocolError[] = [];
  client.onProtocolError((error) => protocolErrors.push(error));

  const answerFor = (id: string, type: RequestType): Answer => {
    const line = log.find((entry) => entry.id === id && (entry.type === 'ok' || entry.type === 'error'));
    if (!line) throw new Error(`the ${type} request ${id} settled without a logged answer`);
    return { id, type: line.type as Answer['type'], payload: line.payload, index: line.index };
  };

  const start = (request: OutgoingRequest, timeoutMs: number): Promise<Answer> => {
    const pending = client.request(request.type, request.payload, { timeoutMs });
    const id = lastRequestId;
    return pending.then(
      () => answerFor(id, request.type),
      (error: unknown) => {
        if (error instanceof SidecarRequestError && error.reason === 'error_response')
          return answerFor(id, request.type);
        throw error;
      },
    );
  };

  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };

  return {
    pid: child.pid ?? -1,
    log,
    stderrLines,
    protocolErrors,
    request: (type, payload, requestOptions = {}) => start({ type, payload }, requestOptions.timeoutMs ?? 30_000),
    requestTogether: (requests, requestOptions = {}) => {
      child.stdin.cork();
      try {
        return requests.map((request) => start(request, requestOptions.timeoutMs ?? 30_000));
      } finally {
        child.stdin.uncork();
      }
    },
    waitFor: (predicate, description, wait = {}) => {
      const timeoutMs = wait.timeoutMs ?? 20_000;
      const from = wait.from ?? 0;
      return new Promise((resolve, reject) => {
        const find = (): LoggedLine | undefined => log.slice(from).find(predicate);
        const found = find();
        if (found) {
          resolve(found);
          return;
        }
        const wake = (): void => {
          const match = find();
          if (!match) return;
          finish();
          resolve(match);
        };
        const timer = setTimeout(() => {
          finish();
          const seen = log.slice(from).map((entry) => entry.type);
          reject(
            new Error(`timed out after ${timeoutMs}ms waiting for ${description}; sidecar wrote: ${seen.join(', ')}`),
          );
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          wakers.delete(wake);
        };
        wakers.add(wake);
      });
    },
    close: async (timeoutMs = 15_000) => {
      await client.close();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const outcome = await Promise.race([exited, deadline]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        kill();
        throw new Error(`sidecar did not exit within ${timeoutMs}ms after stdin closed`);
      }
    },
    kill,
  };
}

/** Hands every received line to `record` before the client sees it, so the log order is the wire order. */
function tapLines(inner: LineTransport, record: (line: string) => void): LineTransport {
  return {
    start: (handlers) =>
      inner.start({
        ...handlers,
        onLine: (line) => {
          record(line);
          handlers.onLine(line);
        },
      }),
    send: (line) => inner.send(line),
    close: () => inner.close(),
  };
}
