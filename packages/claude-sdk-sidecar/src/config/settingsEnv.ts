import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { asRecord } from '../shared/sdkValues.ts';
import { claudeConfigDir } from './claudeConfigDir.ts';

export interface QueryEnvInput {
  /** The sidecar's own environment as it is now (the daemon starts the sidecar without a shell). */
  processEnv: Readonly<Record<string, string | undefined>>;
  /** The session's working directory; blank skips the project settings walk. */
  cwd: string;
  /** The `env` object of the start payload; only string values count. */
  payloadEnv?: Readonly<Record<string, unknown>>;
}

/**
 * Claude Code consumes `session_state_changed` only when this is set; the runtime's idle and
 * continuation logic depends on it, so no layer may turn it off.
 */
const FORCED_QUERY_ENV: Readonly<Record<string, string>> = { CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: '1' };

/**
 * The complete child environment for one Query generation, layered the way a terminal `claude` sees it
 * (lowest first): the sidecar's env, the user settings file, project settings from the filesystem root
 * down to cwd (local beats shared in one directory, deeper beats shallower), the start payload's env.
 * Settings files are read again on every call so a new generation sees edits; a file that is missing,
 * unreadable or malformed contributes nothing.
 */
export function buildQueryEnv(input: QueryEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  assignStrings(env, input.processEnv);
  const readSettingsEnv = memoizedSettingsEnvReader();
  assignStrings(env, readSettingsEnv(userSettingsPath(input.processEnv)));
  for (const path of projectSettingsPaths(input.cwd)) assignStrings(env, readSettingsEnv(path));
  if (input.payloadEnv) assignStrings(env, input.payloadEnv);
  return Object.assign(env, FORCED_QUERY_ENV);
}

function userSettingsPath(processEnv: QueryEnvInput['processEnv']): string {
  return join(claudeConfigDir(processEnv.CLAUDE_CONFIG_DIR), 'settings.json');
}

/** `<dir>/.claude/settings.json` then `<dir>/.claude/settings.local.json` for each dir, root first. */
function projectSettingsPaths(cwd: string): string[] {
  if (!cwd.trim()) return [];
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dirname(dir) === dir) break;
  }
  return dirs
    .reverse()
    .flatMap((dir) => [join(dir, '.claude', 'settings.json'), join(dir, '.claude', 'settings.local.json')]);
}

/** Within one build, a file that appears in two layers (the user file when cwd is under $HOME) is read once. */
function memoizedSettingsEnvReader(): (path: string) => Record<string, string> {
  const seen = new Map<string, Record<string, string>>();
  return (path) => {
    let env = seen.get(path);
    if (!env) {
      env = readSettingsEnv(path);
      seen.set(path, env);
    }
    return env;
  };
}

function readSettingsEnv(path: string): Record<string, string> {
  let settings: unknown;
  try {
    settings = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
  const settingsEnv = asRecord(asRecord(settings)?.env);
  if (!settingsEnv) return {};
  const env: Record<string, string> = {};
  assignStrings(env, settingsEnv);
  return env;
}

function assignStrings(target: Record<string, string>, source: Readonly<Record<string, unknown>>): void {
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === 'string') target[key] = value;
  }
}
