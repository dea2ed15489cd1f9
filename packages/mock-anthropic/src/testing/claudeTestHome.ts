import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** An isolated place for one real Claude Code run: its own config, temp and working directories. */
export interface ClaudeTestHome {
  readonly root: string;
  readonly configDir: string;
  readonly tmpDir: string;
  readonly cwd: string;
  /**
   * The complete child environment for `query({options: {env}})` (the SDK replaces, not merges, the env).
   * Points Claude Code at the scripted API and keeps every byte it writes inside `root`.
   */
  readonly env: Record<string, string>;
  cleanup(): Promise<void>;
}

export interface ClaudeTestHomeOptions {
  /** Base URL of a mock-anthropic server, e.g. `http://127.0.0.1:41234`. */
  baseUrl: string;
  /** Extra variables layered over the isolated defaults. */
  env?: Record<string, string>;
}

export async function createClaudeTestHome(options: ClaudeTestHomeOptions): Promise<ClaudeTestHome> {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-cc-'));
  const configDir = join(root, 'config');
  const tmpDir = join(root, 'tmp');
  const cwd = join(root, 'work');
  await Promise.all([mkdir(configDir), mkdir(tmpDir), mkdir(cwd)]);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: root,
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-offline-test',
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_TMPDIR: tmpDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: '1',
    ...options.env,
  };
  return {
    root,
    configDir,
    tmpDir,
    cwd,
    env,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
