import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createStdioLineTransport, SidecarClient } from '@outrigger/protocol';

export const SIDECAR_MAIN_PATH = fileURLToPath(
  new URL('../../packages/claude-sdk-sidecar/src/main.ts', import.meta.url),
);

/** Sidecar stderr lines kept for the report when it exits unexpectedly. */
const STDERR_TAIL_LINES = 20;

export interface SidecarProcessOptions {
  /** The sidecar's complete environment; its Claude Code children inherit it. */
  env: Record<string, string | undefined>;
  /** Per-request deadline unless a request names its own. */
  requestTimeoutMs?: number;
}

/** A real sidecar child driven over its stdio by the protocol client. */
export interface SidecarProcess {
  readonly pid: number;
  readonly client: SidecarClient;
  /** Resolves with the exit code once the process has ended (`null` when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** The last stderr lines (diagnostics only; the sidecar never writes prompts there). */
  stderrTail(): string[];
  /** Ends stdin (the sidecar closes its sessions and exits); kills it when it outlives `timeoutMs`. */
  stop(timeoutMs?: number): Promise<number | null>;
}

export async function spawnSidecarProcess(options: SidecarProcessOptions): Promise<SidecarProcess> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [SIDECAR_MAIN_PATH], {
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: a terminal's Ctrl-C is the chat's to handle (it cancels a turn), not the
    // sidecar's to die of. It still ends with us: our exit closes its stdin.
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await once(child, 'spawn');

  const tail: string[] = [];
  let partial = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    tail.push(...lines);
    tail.splice(0, Math.max(0, tail.length - STDERR_TAIL_LINES));
  });

  const client = new SidecarClient(createStdioLineTransport({ input: child.stdout, output: child.stdin }), {
    defaultTimeoutMs: options.requestTimeoutMs ?? 60_000,
  });

  const stop = async (timeoutMs = 10_000): Promise<number | null> => {
    await client.close();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([exited, deadline]);
    clearTimeout(timer);
    if (outcome !== 'timeout') return outcome;
    child.kill('SIGKILL');
    return exited;
  };

  return { pid: child.pid ?? -1, client, exited, stderrTail: () => [...tail], stop };
}
