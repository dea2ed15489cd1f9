import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * A sidecar client that knows only what the original's README (`../shared/seeds/`) says: newline-delimited
 * JSON envelopes on stdio, each carrying `"version": 10`, answers correlated by `id`, events without one. It
 * imports nothing of ours, as a host written for `@tutti-os/claude-sdk-sidecar` would not.
 */
export interface SeedLine {
  readonly version: number;
  readonly id?: string;
  readonly type: string;
  readonly payload?: Record<string, unknown>;
}

export class SeedReadmeClient {
  readonly lines: SeedLine[] = [];
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiters = new Set<() => void>();
  #next = 0;
  stderr = '';

  constructor(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
    this.#child = spawn(command, args, { env, cwd, stdio: 'pipe' });
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      this.lines.push(JSON.parse(line) as SeedLine);
      for (const wake of this.#waiters) wake();
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Writes a request and waits for the line with its id. */
  async request(type: string, payload: Record<string, unknown>, timeoutMs = 90_000): Promise<SeedLine> {
    this.#next += 1;
    const id = `seed-${this.#next}`;
    this.#child.stdin.write(`${JSON.stringify({ version: 10, id, type, payload })}\n`);
    return this.waitFor((line) => line.id === id, `the answer to ${type}`, timeoutMs);
  }

  async waitFor(match: (line: SeedLine) => boolean, what: string, timeoutMs = 90_000): Promise<SeedLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(match);
      if (found !== undefined) return found;
      if (this.#child.exitCode !== null) throw new Error(`the sidecar exited before ${what}: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, 500));
        this.#waiters.add(wake);
      });
    }
  }

  /** Ends stdin, as the README says ends every session, and waits for the exit code (killed after 20 s). */
  async end(): Promise<number | null> {
    if (this.#child.exitCode !== null) return this.#child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.#child.once('exit', (code) => resolve(code)));
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }
}
