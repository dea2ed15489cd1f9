import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hasModelCredentials, openModelBackend } from './modelBackend.ts';

test('any non-empty API key, auth token or base URL counts as model credentials', () => {
  assert.equal(hasModelCredentials({}), false);
  assert.equal(hasModelCredentials({ ANTHROPIC_API_KEY: '' }), false);
  assert.equal(hasModelCredentials({ ANTHROPIC_API_KEY: 'k' }), true);
  assert.equal(hasModelCredentials({ ANTHROPIC_AUTH_TOKEN: 't' }), true);
  assert.equal(hasModelCredentials({ ANTHROPIC_BASE_URL: 'http://proxy' }), true);
});

test('with credentials the sidecar gets the environment unchanged and no server runs', async () => {
  const processEnv = { PATH: '/bin', ANTHROPIC_API_KEY: 'sk-user' };
  const backend = await openModelBackend({ processEnv, dataDir: '/nonexistent' });
  assert.equal(backend.kind, 'anthropic');
  assert.deepEqual(backend.sidecarEnv, processEnv);
  assert.notEqual(backend.sidecarEnv, processEnv);
  await backend.close();
});

test('without credentials the demo model serves on loopback and Claude Code is kept under the data dir', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'outrigger-backend-'));
  const backend = await openModelBackend({ processEnv: { PATH: '/bin', HOME: '/home/someone' }, dataDir });
  try {
    assert.equal(backend.kind, 'demo');
    assert.match(backend.headline, /DEMO MODEL — offline scripted answers; set ANTHROPIC_API_KEY for Claude/);
    assert.ok(backend.notice.some((line) => /markdown/.test(line)));
    const env = backend.sidecarEnv;
    assert.equal(env.PATH, '/bin');
    assert.equal(env.CLAUDE_CONFIG_DIR, join(dataDir, 'demo-claude', 'config'));
    assert.equal(env.CLAUDE_CODE_TMPDIR, join(dataDir, 'demo-claude', 'tmp'));
    assert.ok((await stat(env.CLAUDE_CONFIG_DIR ?? '')).isDirectory());
    assert.equal(env.CLAUDE_CODE_ENABLE_TODO_TOOLS, '1');
    assert.equal(env.CLAUDE_CODE_ENABLE_TASKS, '0');
    assert.match(env.ANTHROPIC_BASE_URL ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'hello' }] }),
    });
    assert.equal(response.status, 200);
  } finally {
    await backend.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  await assert.rejects(fetch(`${backend.sidecarEnv.ANTHROPIC_BASE_URL}/v1/messages/count_tokens`, { method: 'POST' }));
});
