import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { claudeConfigDir } from '../config/claudeConfigDir.ts';
import { type DiagnosticPayload, fingerprintError, textFingerprint, writeDiagnosticLine } from './diagnosticLine.ts';

export const AUTH_REFRESH_DEBUG_PREFIX = 'CLAUDE_CODE_AUTH_REFRESH_DEBUG';
/** The sidecar-process env switch; anything but empty, `0`, `false`, `no` or `off` turns the records on. */
const AUTH_REFRESH_DEBUG_ENV = 'TUTTI_CLAUDE_AUTH_REFRESH_DEBUG';

export type AuthRefreshStage =
  | 'session_starting'
  | 'session_started'
  | 'session_start_failed'
  | 'query_created'
  | 'query_ended'
  | 'authentication_rejected'
  | 'session_closed';

export interface AuthRefreshRecord {
  readonly agentSessionId: string;
  readonly providerSessionId: string;
  readonly generationId?: number;
  /** The env a Query runs with: its credentials are described by presence and fingerprint only. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly error?: unknown;
}

/** Env entries that carry or locate credentials, and the field name each is reported under. */
const CREDENTIAL_ENV: ReadonlyArray<readonly [envKey: string, field: string]> = [
  ['ANTHROPIC_API_KEY', 'apiKey'],
  ['ANTHROPIC_AUTH_TOKEN', 'authToken'],
  ['CLAUDE_CODE_OAUTH_TOKEN', 'oauthToken'],
  ['ANTHROPIC_BASE_URL', 'baseUrl'],
  ['CLAUDE_CONFIG_DIR', 'configDirPath'],
];

const FALSY = new Set(['', '0', 'false', 'no', 'off']);

export function isAuthRefreshDebugEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env[AUTH_REFRESH_DEBUG_ENV];
  return value !== undefined && !FALSY.has(value.trim().toLowerCase());
}

/**
 * `CLAUDE_CODE_AUTH_REFRESH_DEBUG` records (reference §3.9): session and Query lifecycle stages with a
 * snapshot of the credentials each Query sees, to tell a refreshed login from a stale one. Only written
 * when the sidecar runs with `TUTTI_CLAUDE_AUTH_REFRESH_DEBUG`. Tokens, paths and file contents appear
 * as presence flags and 12-hex sha256 fingerprints; errors as fingerprints, never messages or stacks.
 */
export class AuthRefreshDebug {
  readonly #enabled: boolean;
  readonly #pid: number;

  constructor(options: { enabled: boolean; pid?: number }) {
    this.#enabled = options.enabled;
    this.#pid = options.pid ?? process.pid;
  }

  static fromEnv(env: Readonly<Record<string, string | undefined>>): AuthRefreshDebug {
    return new AuthRefreshDebug({ enabled: isAuthRefreshDebugEnabled(env) });
  }

  record(stage: AuthRefreshStage, record: AuthRefreshRecord): void {
    if (!this.#enabled) return;
    writeDiagnosticLine(AUTH_REFRESH_DEBUG_PREFIX, {
      stage,
      sidecarPid: this.#pid,
      agentSessionId: record.agentSessionId,
      providerSessionId: record.providerSessionId,
      ...(record.generationId === undefined ? {} : { generationId: record.generationId }),
      ...(record.env ? credentialSnapshot(record.env) : {}),
      ...(record.error === undefined ? {} : { error: fingerprintError(record.error) }),
    });
  }
}

/** Which credentials an env carries, and the state of the credentials file its config dir holds. */
export function credentialSnapshot(env: Readonly<Record<string, string | undefined>>): DiagnosticPayload {
  const snapshot: Record<string, string | number | boolean> = {};
  for (const [envKey, field] of CREDENTIAL_ENV) {
    const value = env[envKey];
    snapshot[`${field}Present`] = Boolean(value);
    if (value) snapshot[`${field}Fingerprint`] = textFingerprint(value);
  }
  const credentialsFile = join(claudeConfigDir(env.CLAUDE_CONFIG_DIR), '.credentials.json');
  try {
    const { mtimeMs } = statSync(credentialsFile);
    snapshot.credentialsFilePresent = true;
    snapshot.credentialsFileModifiedMs = Math.round(mtimeMs);
    snapshot.credentialsFileFingerprint = textFingerprint(readFileSync(credentialsFile, 'utf8'));
  } catch {
    snapshot.credentialsFilePresent = false;
  }
  return snapshot;
}
