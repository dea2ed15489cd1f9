import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findModelCredential } from '@outrigger/claude-sdk-sidecar/credentials';
import { checkCredential } from './credentialCheck.ts';

test('a key in the environment is named by its variable, and its value is nowhere in the line', async () => {
  const configDir = await mkdtemp(join(tmpdir(), 'outrigger-doctor-claude-'));
  try {
    const secret = 'sk-ant-doctor-secret-value-1234';
    const credential = findModelCredential({ processEnv: { ANTHROPIC_API_KEY: secret, CLAUDE_CONFIG_DIR: configDir } });
    const result = checkCredential(credential);
    assert.equal(result.status, 'ok');
    assert.match(result.detail, /ANTHROPIC_API_KEY is set in the environment/);
    assert.doesNotMatch(JSON.stringify(result), /sk-ant-doctor-secret/);
  } finally {
    await rm(configDir, { recursive: true, force: true });
  }
});

test('a login is reported with the file it was found in', () => {
  const result = checkCredential({ source: 'login', path: '/home/u/.claude/.credentials.json' });
  assert.equal(result.status, 'ok');
  assert.match(result.detail, /logged in to Claude \(\/home\/u\/\.claude\/\.credentials\.json\)/);
});

test('no credential is a note, not a failure: the demo model answers', () => {
  const result = checkCredential(undefined);
  assert.equal(result.status, 'note');
  assert.match(result.detail, /demo model answers \(not a failure\)/);
  assert.match(result.detail, /ANTHROPIC_API_KEY/);
});
