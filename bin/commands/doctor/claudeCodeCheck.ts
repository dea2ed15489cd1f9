import { execFile } from 'node:child_process';
import { findBundledClaudeBinary, resolveClaudeExecutable } from '@outrigger/claude-sdk-sidecar/executable';
import { type CheckResult, fail, ok } from './checkResult.ts';

/** What running `claude --version` gave: its first line, or why it did not run. */
export type VersionRun = { readonly version: string } | { readonly error: string };

export interface ClaudeCodeInputs {
  /** The sidecar's environment: `CLAUDE_CODE_EXECUTABLE` and the fallback variable are read from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The native binary the SDK would pick by itself, if its platform package is installed. */
  readonly bundledBinary?: () => string | undefined;
  readonly runVersion?: (path: string) => Promise<VersionRun>;
}

const VERSION_TIMEOUT_MS = 15_000;

const SPAWN_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file (ENOENT)',
  EACCES: 'not executable (EACCES)',
  ENOEXEC: 'not a binary for this machine (ENOEXEC)',
};

/**
 * The Claude Code the sidecar would start, found by the sidecar's own rule (`resolveClaudeExecutable`: an
 * explicit `CLAUDE_CODE_EXECUTABLE`, else the SDK's platform binary, else the fallback), then run with
 * `--version`: a binary that is present but cannot run (wrong architecture, no exec bit) fails here rather
 * than in the first turn.
 */
export async function checkClaudeCode(inputs: ClaudeCodeInputs): Promise<CheckResult> {
  const bundled = (inputs.bundledBinary ?? findBundledClaudeBinary)();
  const override = resolveClaudeExecutable(inputs.env, { bundledBinary: () => bundled });
  const path = override ?? bundled;
  if (path === undefined) {
    return fail(
      'claude code',
      `the SDK's native Claude Code binary for ${process.platform}-${process.arch} is not installed: reinstall without --omit=optional, or set CLAUDE_CODE_EXECUTABLE to a Claude Code binary`,
    );
  }
  const where = override === undefined ? path : `${path} (from ${whichVariable(inputs.env, override)})`;
  const run = await (inputs.runVersion ?? runClaudeVersion)(path);
  if ('error' in run) return fail('claude code', `${where} does not run: ${run.error}`);
  return ok('claude code', `${run.version} at ${where}`);
}

function whichVariable(env: Readonly<Record<string, string | undefined>>, path: string): string {
  return env.CLAUDE_CODE_EXECUTABLE?.trim() === path
    ? 'CLAUDE_CODE_EXECUTABLE'
    : 'TUTTI_CLAUDE_CODE_FALLBACK_EXECUTABLE';
}

/**
 * `<path> --version`, without a shell (the path is the user's, never a command line) and killed after a
 * timeout; `execFile` calls back only once the child has exited, so none is left behind.
 */
export function runClaudeVersion(path: string, timeoutMs: number = VERSION_TIMEOUT_MS): Promise<VersionRun> {
  return new Promise((resolve) => {
    execFile(
      path,
      ['--version'],
      { timeout: timeoutMs, killSignal: 'SIGKILL', windowsHide: true, encoding: 'utf8', maxBuffer: 64 * 1024 },
      (error, stdout, stderr) => {
        const firstLine = (text: string) => text.trim().split('\n')[0]?.trim() ?? '';
        if (error !== null) {
          const code = (error as NodeJS.ErrnoException).code;
          const why =
            error.killed === true
              ? `no answer to --version within ${timeoutMs / 1000} s`
              : typeof code === 'string'
                ? (SPAWN_ERRORS[code] ?? code)
                : `--version exited with ${code ?? error.signal}${firstLine(stderr) === '' ? '' : `: ${firstLine(stderr)}`}`;
          resolve({ error: why });
          return;
        }
        const version = firstLine(stdout);
        resolve(version === '' ? { error: '--version printed nothing' } : { version });
      },
    );
  });
}
