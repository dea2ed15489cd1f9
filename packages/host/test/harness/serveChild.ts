import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HostClient } from '@outrigger/host-api';
import { TEST_MARK_VARIABLE } from './processes.ts';

const CLI = fileURLToPath(new URL('../../../../bin/outrigger.ts', import.meta.url));

/** `outrigger serve` as a child process, started and read the way a person would. */
export interface ServeChild {
  readonly child: ChildProcess;
  /** The URL it printed, `http://127.0.0.1:PORT/?token=…`. */
  readonly url: string;
  readonly baseUrl: string;
  readonly token: string;
  readonly client: HostClient;
  /** Everything it printed on stdout and stderr so far. */
  output(): string;
  /** Sends `signal` and resolves with the exit code (or the signal's name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * This process's environment without npm's variables and without any Claude credential or config: a machine
 * on which `serve` picks the offline demo model.
 */
export function credentialFreeEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined &&
        !entry[0].startsWith('npm_') &&
        !entry[0].startsWith('ANTHROPIC_') &&
        !entry[0].startsWith('CLAUDE_'),
    ),
  );
}

/**
 * The environment of an `outrigger serve` whose sidecar runs scripted test-driver sessions (no Claude Code),
 * with `home` as HOME. A credential variable keeps the CLI off the demo model; it points nowhere, and the
 * test driver never calls it.
 */
export function testDriverServeEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    TUTTI_CLAUDE_SDK_SIDECAR_TEST_DRIVER: '1',
    ...extra,
  };
}

/**
 * Runs `node bin/outrigger.ts serve ARGS` (or `EXECUTABLE serve ARGS`) with exactly `env` (plus the test
 * mark) and waits for the URL line. Fails with the output when it exits first or prints no URL within
 * `timeoutMs`.
 */
export async function spawnServe(options: {
  args: string[];
  env: Record<string, string>;
  mark: string;
  /** An installed `outrigger` to run instead of this checkout's CLI. */
  executable?: string;
  cwd?: string;
  timeoutMs?: number;
}): Promise<ServeChild> {
  const [command, prefix] = options.executable === undefined ? [process.execPath, [CLI]] : [options.executable, []];
  const child = spawn(command, [...prefix, 'serve', ...options.args], {
    env: { ...options.env, [TEST_MARK_VARIABLE]: options.mark },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    output += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    output += text;
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`outrigger serve printed no URL within ${options.timeoutMs ?? 60_000} ms:\n${output}`));
    }, options.timeoutMs ?? 60_000);
    const look = () => {
      const match = /(http:\/\/\S+\/\?token=[A-Za-z0-9_-]+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        child.stdout.off('data', look);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`outrigger serve exited (${code}) before printing its URL:\n${output}`));
    });
  });
  const parsed = new URL(url);
  const token = parsed.searchParams.get('token') ?? '';
  const baseUrl = parsed.origin;
  return {
    child,
    url,
    baseUrl,
    token,
    client: new HostClient({ baseUrl, token }),
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
