import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainObject } from '@outrigger/protocol';
import { claudeConfigDir } from './claudeConfigDir.ts';
import { buildQueryEnv } from './settingsEnv.ts';

/** The variables that give Claude Code a model to talk to (a key, a token, or an endpoint of its own). */
export const MODEL_CREDENTIAL_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'CLAUDE_CODE_OAUTH_TOKEN',
] as const;

export type ModelCredentialVariable = (typeof MODEL_CREDENTIAL_VARIABLES)[number];

/** Where Claude Code would find what it authenticates with; never the secret itself. */
export type ModelCredential =
  | { readonly source: 'environment'; readonly variable: ModelCredentialVariable }
  | { readonly source: 'settings'; readonly variable: ModelCredentialVariable }
  | { readonly source: 'login'; readonly path: string };

/**
 * The first credential the sidecar's Claude Code would use, looking where it looks: the environment,
 * then the `env` of Claude's settings files as the sidecar layers them (`buildQueryEnv`: the user file
 * under `CLAUDE_CONFIG_DIR` or `~/.claude`, and the project files above `cwd` when one is given), then a
 * Claude login (`.credentials.json` in the same config dir). Undefined when there is none. (A login kept
 * in the macOS keychain instead of the file is not seen.)
 */
export function findModelCredential(input: {
  processEnv: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}): ModelCredential | undefined {
  const { processEnv } = input;
  const inEnvironment = MODEL_CREDENTIAL_VARIABLES.find((name) => nonBlank(processEnv[name]));
  if (inEnvironment) return { source: 'environment', variable: inEnvironment };

  const settingsEnv = buildQueryEnv({
    processEnv: { CLAUDE_CONFIG_DIR: processEnv.CLAUDE_CONFIG_DIR },
    cwd: input.cwd ?? '',
  });
  const inSettings = MODEL_CREDENTIAL_VARIABLES.find((name) => nonBlank(settingsEnv[name]));
  if (inSettings) return { source: 'settings', variable: inSettings };

  const login = join(claudeConfigDir(processEnv.CLAUDE_CONFIG_DIR), '.credentials.json');
  if (holdsLogin(login)) return { source: 'login', path: login };
  return undefined;
}

/** A credentials file counts when it is a JSON object with something in it; empty or unreadable, it does not. */
function holdsLogin(path: string): boolean {
  try {
    const content: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isPlainObject(content) && Object.keys(content).length > 0;
  } catch {
    return false;
  }
}

function nonBlank(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}
