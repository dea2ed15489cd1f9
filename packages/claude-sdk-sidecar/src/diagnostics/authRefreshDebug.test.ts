import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  AUTH_REFRESH_DEBUG_PREFIX,
  AuthRefreshDebug,
  credentialSnapshot,
  isAuthRefreshDebugEnabled,
} from './authRefreshDebug.ts';
import { withDiagnosticSinkForTest } from './diagnosticLine.ts';

const SECRET = 'sk-ant-secret-value';

function payloadOf(line: string): Record<string, unknown> {
  assert.ok(line.startsWith(`${AUTH_REFRESH_DEBUG_PREFIX} `), line);
  return JSON.parse(line.slice(AUTH_REFRESH_DEBUG_PREFIX.length + 1)) as Record<string, unknown>;
}

test('the switch is on for any value but empty, 0, false, no and off', () => {
  for (const value of ['1', 'true', 'yes', 'debug']) {
    assert.equal(isAuthRefreshDebugEnabled({ TUTTI_CLAUDE_AUTH_REFRESH_DEBUG: value }), true, value);
  }
  for (const value of [undefined, '', '0', 'false', 'NO', ' off ']) {
    assert.equal(isAuthRefreshDebugEnabled({ TUTTI_CLAUDE_AUTH_REFRESH_DEBUG: value }), false, String(value));
  }
});

test('nothing is written unless the switch is on', async () => {
  const lines = await withDiagnosticSinkForTest((written) => {
    AuthRefreshDebug.fromEnv({}).record('session_started', { agentSessionId: 's1', providerSessionId: 'p1' });
    return written;
  });
  assert.deepEqual(lines, []);
});

test('a record names the stage and ids; credentials, paths and errors only as presence and fingerprints', async (t) => {
  const configDir = mkdtempSync(join(tmpdir(), 'outrigger-auth-debug-'));
  t.after(() => rmSync(configDir, { recursive: true, force: true }));
  const env = { ANTHROPIC_API_KEY: SECRET, CLAUDE_CONFIG_DIR: configDir };
  const debug = new AuthRefreshDebug({ enabled: true, pid: 42 });
  const lines = await withDiagnosticSinkForTest((written) => {
    debug.record('query_created', { agentSessionId: 's1', providerSessionId: 'p1', generationId: 2, env });
    debug.record('query_ended', { agentSessionId: 's1', providerSessionId: 'p1', error: new Error(`bad ${SECRET}`) });
    return written;
  });
  assert.equal(lines.length, 2);
  const [created, ended] = lines.map(payloadOf);
  assert.equal(created?.stage, 'query_created');
  assert.equal(created?.sidecarPid, 42);
  assert.equal(created?.generationId, 2);
  assert.equal(created?.apiKeyPresent, true);
  assert.match(String(created?.apiKeyFingerprint), /^[0-9a-f]{12}$/);
  assert.equal(created?.oauthTokenPresent, false);
  assert.equal(created?.oauthTokenFingerprint, undefined);
  assert.equal(created?.configDirPathPresent, true);
  assert.equal(created?.credentialsFilePresent, false);
  assert.deepEqual(Object.keys((ended?.error ?? {}) as object).sort(), ['messageFingerprint', 'messageLength', 'name']);
  for (const line of lines) {
    assert.ok(!line.includes(SECRET), 'no credential value');
    assert.ok(!line.includes(configDir), 'no path');
  }
});

test('a refreshed credentials file shows as a new fingerprint and modification time', async (t) => {
  const configDir = mkdtempSync(join(tmpdir(), 'outrigger-auth-debug-'));
  t.after(() => rmSync(configDir, { recursive: true, force: true }));
  const file = join(configDir, '.credentials.json');
  writeFileSync(file, '{"claudeAiOauth":{"accessToken":"old"}}');
  utimesSync(file, 1_000, 1_000);
  const before = credentialSnapshot({ CLAUDE_CONFIG_DIR: configDir });
  writeFileSync(file, '{"claudeAiOauth":{"accessToken":"new"}}');
  utimesSync(file, 2_000, 2_000);
  const after = credentialSnapshot({ CLAUDE_CONFIG_DIR: configDir });
  assert.equal(before.credentialsFilePresent, true);
  assert.notEqual(before.credentialsFileFingerprint, after.credentialsFileFingerprint);
  assert.deepEqual([before.credentialsFileModifiedMs, after.credentialsFileModifiedMs], [1_000_000, 2_000_000]);
  assert.ok(!JSON.stringify(after).includes('accessToken'));
});
