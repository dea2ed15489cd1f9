import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { devNull } from 'node:os';

/** Why a git call failed, in the words a card or an error body can show. */
export type GitFailureKind = 'not_installed' | 'not_a_repository' | 'timed_out' | 'locked' | 'corrupt' | 'failed';

export class GitError extends Error {
  readonly kind: GitFailureKind;
  /** git's own first line of stderr (paths, never file contents), when it said something. */
  readonly detail: string;
  constructor(kind: GitFailureKind, message: string, detail = '') {
    super(message);
    this.name = 'GitError';
    this.kind = kind;
    this.detail = detail;
  }
}

export interface GitOptions {
  readonly cwd: string;
  /** Added to the call's environment (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, …). */
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: string | Buffer;
  /** Default 30 s: a git that hangs (a lock held elsewhere, a huge tree) must not hang the host. */
  readonly timeoutMs?: number;
  /** Exit codes that are answers rather than failures (`git diff --quiet` exits 1 on a difference). */
  readonly okExitCodes?: readonly number[];
}

export interface GitOutput {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const STDERR_LIMIT = 16 * 1024;

/**
 * The environment every git call gets: no system or global configuration (a user's hooks, fsmonitor,
 * pager or credential helper never run in the host), no prompt, stable English output.
 */
function gitEnvironment(extra: Readonly<Record<string, string>> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    ...extra,
  };
}

/**
 * Runs git with an argument array (never a shell), a timeout and a clean environment; resolves with
 * its output, or rejects with a classified `GitError`. Hooks and fsmonitor are off for every call.
 */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitOutput> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    // A repository's own configuration still applies: what would run a program of its choosing is overridden.
    const child = spawn('git', ['-c', `core.hooksPath=${devNull}`, '-c', 'core.fsmonitor=false', ...args], {
      cwd: options.cwd,
      env: gitEnvironment(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code !== 'ENOENT') reject(new GitError('failed', `git could not be started: ${error.message}`));
      // spawn says ENOENT for a missing working directory too, not only for a missing program.
      else if (!existsSync(options.cwd)) reject(new GitError('failed', `the directory ${options.cwd} does not exist`));
      else reject(new GitError('not_installed', 'git is not installed (or not on PATH)'));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const exitCode = code ?? -1;
      if (timedOut) {
        reject(new GitError('timed_out', `git ${args[0] ?? ''} did not finish within ${timeoutMs} ms`));
        return;
      }
      if (exitCode === 0 || options.okExitCodes?.includes(exitCode)) {
        resolve({ stdout: Buffer.concat(stdout), stderr, exitCode });
        return;
      }
      reject(classifyFailure(args, exitCode, stderr));
    });
    child.stdin.on('error', () => {
      // git exited before reading its input; its exit code tells what happened.
    });
    child.stdin.end(options.input);
  });
}

function classifyFailure(args: readonly string[], exitCode: number, stderr: string): GitError {
  const detail = stderr.split('\n').find((line) => line.trim() !== '') ?? '';
  const what = `git ${args.find((arg) => !arg.startsWith('-')) ?? ''}`.trim();
  if (/index\.lock|\.lock': File exists|Unable to create '.*\.lock'/.test(stderr)) {
    return new GitError('locked', `${what} failed: a git index is locked by another git process`, detail);
  }
  if (/not a git repository/i.test(stderr)) {
    return new GitError('not_a_repository', `${what} failed: not a git repository`, detail);
  }
  if (/corrupt|bad object|unable to read tree|fatal: bad/i.test(stderr)) {
    return new GitError('corrupt', `${what} failed: the repository is damaged (${detail})`, detail);
  }
  return new GitError('failed', `${what} exited with ${exitCode}${detail === '' ? '' : `: ${detail}`}`, detail);
}
