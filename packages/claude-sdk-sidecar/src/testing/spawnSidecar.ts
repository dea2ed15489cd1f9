import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  createStdioLineTransport,
  type RequestOptions,
  type RequestType,
  SidecarClient,
  type SidecarEvent,
  type SidecarProtocolError,
} from '@outrigger/protocol';

const MAIN_PATH = fileURLToPath(new URL('../main.ts', import.meta.url));

export interface SpawnSidecarOptions {
  /** The sidecar's complete environment (nothing is inherited). */
  env: Record<string, string>;
  cwd?: string;
  /** Default deadline of each request. */
  requestTimeoutMs?: number;
}

export interface WaitOptions {
  timeoutMs?: number;
  /** Names what was awaited in the timeout failure. */
  description?: string;
  /** Only events at or after this index of `events` count. */
  fromIndex?: number;
}

/**
 * A real `node src/main.ts` child driven over stdio through the protocol client. It collects every event
 * and every stderr line; `close()` ends stdin and waits for the exit, `kill()` never leaves it running.
 */
export interface SpawnedSidecar {
  readonly pid: number;
  readonly client: SidecarClient;
  readonly events: SidecarEvent[];
  readonly stderrLines: string[];
  readonly protocolErrors: SidecarProtocolError[];
  request<T = unknown>(type: RequestType, payload: Record<string, unknown>, options?: RequestOptions): Promise<T>;
  /** Writes a raw line to the sidecar's stdin (malformed input tests). */
  writeLine(line: string): void;
  waitForEvent(predicate: (event: SidecarEvent) => boolean, options?: WaitOptions): Promise<SidecarEvent>;
  /** Ends stdin and resolves with the exit code; kills the child if it does not exit within `timeoutMs`. */
  close(timeoutMs?: number): Promise<number | null>;
  kill(): void;
}

export async function spawnSidecar(options: SpawnSidecarOptions): Promise<SpawnedSidecar> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [MAIN_PATH], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  await once(child, 'spawn');
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  const stderrLines: string[] = [];
  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const lines = (stderrTail + chunk).split('\n');
    stderrTail = lines.pop() ?? '';
    stderrLines.push(...lines);
  });

  const events: SidecarEvent[] = [];
  const protocolErrors: SidecarProtocolError[] = [];
  const waiters = new Set<() => void>();
  const client = new SidecarClient(createStdioLineTransport({ input: child.stdout, output: child.stdin }), {
    defaultTimeoutMs: options.requestTimeoutMs ?? 30_000,
  });
  client.onEvent((event) => {
    events.push(event);
    for (const wake of waiters) wake();
  });
  client.onProtocolError((error) => protocolErrors.push(error));

  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };

  return {
    pid: child.pid ?? -1,
    client,
    events,
    stderrLines,
    protocolErrors,
    request: (type, payload, requestOptions) => client.request(type, payload, requestOptions),
    writeLine: (line) => {
      child.stdin.write(`${line}\n`);
    },
    waitForEvent: (predicate, wait = {}) => {
      const timeoutMs = wait.timeoutMs ?? 30_000;
      const from = wait.fromIndex ?? 0;
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = events.slice(from).find(predicate);
          if (!found) return false;
          finish();
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          finish();
          const seen = events.slice(from).map((event) => event.type);
          reject(
            new Error(
              `timed out after ${timeoutMs}ms waiting for ${wait.description ?? 'an event'}; saw: ${seen.join(', ')}`,
            ),
          );
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        const wake = (): void => void check();
        if (!check()) waiters.add(wake);
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
      return outcome;
    },
    kill,
  };
}
