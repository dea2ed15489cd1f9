import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openModelBackend } from './modelBackend.ts';

async function withDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-backend-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('with a credential the sidecar gets the environment unchanged, no server runs, and the headline says why', () =>
  withDir(async (dir) => {
    const processEnv = { PATH: '/bin', ANTHROPIC_API_KEY: 'sk-user', CLAUDE_CONFIG_DIR: dir };
    const backend = await openModelBackend({ processEnv, dataDir: join(dir, 'data') });
    assert.equal(backend.kind, 'anthropic');
    assert.deepEqual(backend.sidecarEnv, processEnv);
    assert.notEqual(backend.sidecarEnv, processEnv);
    assert.equal(
      backend.headline,
      'Model: Claude, with your Claude Code configuration (ANTHROPIC_API_KEY is set in the environment).',
    );
    assert.doesNotMatch(backend.headline, /sk-user/);
    assert.equal(backend.reason, 'A Claude credential was found: ANTHROPIC_API_KEY is set in the environment.');
    await backend.close();
    await assert.rejects(stat(join(dir, 'data')), 'nothing is created for the real model');
  }));

test('a Claude login or a settings-file credential chooses Claude too, and says which', () =>
  withDir(async (dir) => {
    await writeFile(join(dir, '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: 'secret' } }));
    const login = await openModelBackend({ processEnv: { CLAUDE_CONFIG_DIR: dir }, dataDir: dir });
    assert.equal(login.kind, 'anthropic');
    assert.match(login.headline, /\(you are logged in to Claude \(.*\.credentials\.json\)\)\.$/);
    assert.doesNotMatch(login.headline, /secret/);
    assert.match(login.reason, /^A Claude credential was found: you are logged in to Claude/);

    const project = join(dir, 'project');
    await mkdir(join(project, '.claude'), { recursive: true });
    await writeFile(
      join(project, '.claude', 'settings.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: 'http://p' } }),
    );
    const settings = await openModelBackend({
      processEnv: { CLAUDE_CONFIG_DIR: join(dir, 'elsewhere') },
      dataDir: dir,
      cwd: project,
    });
    assert.equal(settings.kind, 'anthropic');
    assert.match(settings.headline, /ANTHROPIC_BASE_URL is set in Claude's settings files/);
    assert.match(settings.reason, /ANTHROPIC_BASE_URL is set in Claude's settings files\.$/);
  }));

test('without any credential the demo model serves on loopback and Claude Code is kept under the data dir', () =>
  withDir(async (dataDir) => {
    const userConfig = join(dataDir, 'user-claude');
    await mkdir(userConfig);
    const backend = await openModelBackend({
      processEnv: { PATH: '/bin', HOME: '/home/someone', CLAUDE_CONFIG_DIR: userConfig },
      dataDir,
    });
    try {
      assert.equal(backend.kind, 'demo');
      assert.match(backend.headline, /DEMO MODEL — offline scripted answers: no Claude credential was found/);
      assert.match(backend.reason, /no Anthropic credential was found/i);
      assert.match(
        backend.notice[0] ?? '',
        /ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, CLAUDE_CODE_OAUTH_TOKEN/,
      );
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
    }
    await assert.rejects(
      fetch(`${backend.sidecarEnv.ANTHROPIC_BASE_URL}/v1/messages/count_tokens`, { method: 'POST' }),
    );
  }));
