import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/*
 * `SessionDetail.terminalCommand`: the shell command that continues a session in a terminal with Claude Code
 * itself. It is pasted into a shell, so every value in it is quoted for one: a directory may hold spaces,
 * quotes, `$`, backticks or newlines, and none of them may do anything but name the directory.
 */

/** Characters a POSIX shell takes literally in a word; anything else is single-quoted. */
const SHELL_SAFE = /^[A-Za-z0-9_./:@%+=,-]+$/;

/** `value` as one shell word: as it is when nothing in it is special, else single-quoted (`'` as `'\''`). */
export function shellQuote(value: string): string {
  if (SHELL_SAFE.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export interface TerminalCommandInput {
  readonly cwd: string;
  /** Claude Code's session id (`claude --resume` takes it). */
  readonly providerSessionId: string;
  /** The config dir the host's Claude Code uses, when it is not the default one (`terminalConfigDir`). */
  readonly configDir?: string;
}

/** `cd <cwd> && [CLAUDE_CONFIG_DIR=<dir> ]claude --resume <id>`. */
export function terminalCommand(input: TerminalCommandInput): string {
  const config = input.configDir === undefined ? '' : `CLAUDE_CONFIG_DIR=${shellQuote(input.configDir)} `;
  return `cd ${shellQuote(input.cwd)} && ${config}claude --resume ${shellQuote(input.providerSessionId)}`;
}

/**
 * The config dir a terminal command must name: none when the host's Claude Code uses the one a terminal's
 * `claude` uses by itself (`~/.claude` of the user the host runs as).
 */
export function terminalConfigDir(configDir: string, home: string = homedir()): string | undefined {
  return resolve(configDir) === join(home, '.claude') ? undefined : configDir;
}
