import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildQueryEnv } from './settingsEnv.ts';

let root: string;
let configDir: string;
let outer: string;
let cwd: string;

async function writeSettings(dir: string, file: string, content: unknown): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-settings-env-'));
  configDir = join(root, 'config');
  outer = join(root, 'repo');
  cwd = join(outer, 'packages', 'app');
  await mkdir(cwd, { recursive: true });
  await writeSettings(configDir, 'settings.json', {
    env: { LAYER: 'user', USER_ONLY: 'u', FROM_PROCESS: 'user', NUMBER: 7, NULLISH: null, NESTED: { a: 1 } },
  });
  await writeSettings(join(outer, '.claude'), 'settings.json', {
    env: { LAYER: 'outer', OUTER: 'shared', DEEP: 'outer' },
  });
  await writeSettings(join(outer, '.claude'), 'settings.local.json', { env: { OUTER: 'local' } });
  await writeSettings(join(cwd, '.claude'), 'settings.json', { env: { DEEP: 'cwd', LOCAL_VS_SHARED: 'shared' } });
  await writeSettings(join(cwd, '.claude'), 'settings.local.json', {
    env: { LOCAL_VS_SHARED: 'local', PAYLOAD: 'file' },
  });
});

after(() => rm(root, { recursive: true, force: true }));

describe('buildQueryEnv', () => {
  test('layers process env < user settings < project settings root→cwd < payload, then forces the state events', () => {
    const env = buildQueryEnv({
      processEnv: { CLAUDE_CONFIG_DIR: configDir, FROM_PROCESS: 'process', PROCESS_ONLY: 'p', UNSET: undefined },
      cwd,
      payloadEnv: { PAYLOAD: 'payload', CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: '0', SKIPPED: 3 },
    });
    assert.deepEqual(env, {
      CLAUDE_CONFIG_DIR: configDir,
      FROM_PROCESS: 'user',
      PROCESS_ONLY: 'p',
      LAYER: 'outer',
      USER_ONLY: 'u',
      OUTER: 'local',
      DEEP: 'cwd',
      LOCAL_VS_SHARED: 'local',
      PAYLOAD: 'payload',
      CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: '1',
    });
  });

  test('the user settings come from CLAUDE_CONFIG_DIR of the process env only', () => {
    const env = buildQueryEnv({
      processEnv: { CLAUDE_CONFIG_DIR: join(root, 'elsewhere') },
      cwd: root,
      payloadEnv: { CLAUDE_CONFIG_DIR: configDir },
    });
    assert.equal(env.USER_ONLY, undefined);
    assert.equal(env.CLAUDE_CONFIG_DIR, configDir);
  });

  test('a blank cwd skips the project walk', () => {
    const env = buildQueryEnv({ processEnv: { CLAUDE_CONFIG_DIR: configDir }, cwd: '  ' });
    assert.equal(env.LAYER, 'user');
    assert.equal(env.DEEP, undefined);
  });

  test('malformed, non-object and odd env blocks contribute nothing and never throw', async () => {
    const odd = join(root, 'odd');
    const cases: [string, unknown][] = [
      ['a', '{ not json'],
      ['b', '[1, 2]'],
      ['c', { env: ['A=1'] }],
      ['d', { env: 'A=1' }],
      ['e', { permissions: {} }],
      ['f', 'null'],
    ];
    for (const [dir, content] of cases) {
      const projectDir = join(odd, dir);
      await writeSettings(join(projectDir, '.claude'), 'settings.json', content);
      const env = buildQueryEnv({ processEnv: { CLAUDE_CONFIG_DIR: join(root, 'missing') }, cwd: projectDir });
      assert.deepEqual(
        env,
        { CLAUDE_CONFIG_DIR: join(root, 'missing'), CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: '1' },
        dir,
      );
    }
  });

  test('settings are read again on every call', async () => {
    const project = join(root, 'live');
    await writeSettings(join(project, '.claude'), 'settings.json', { env: { VERSION: 'one' } });
    const input = { processEnv: { CLAUDE_CONFIG_DIR: configDir }, cwd: project };
    assert.equal(buildQueryEnv(input).VERSION, 'one');
    await writeSettings(join(project, '.claude'), 'settings.json', { env: { VERSION: 'two' } });
    assert.equal(buildQueryEnv(input).VERSION, 'two');
  });
});
