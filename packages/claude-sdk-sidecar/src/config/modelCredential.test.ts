import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { findModelCredential, MODEL_CREDENTIAL_VARIABLES } from './modelCredential.ts';

let root: string;
/** A Claude config dir with nothing in it: the tests never look at the real ~/.claude. */
let emptyConfig: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-credential-'));
  emptyConfig = join(root, 'empty');
  await mkdir(emptyConfig);
});

after(() => rm(root, { recursive: true, force: true }));

async function configDir(name: string, files: Record<string, unknown>): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    await writeFile(join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

test('none: nothing in the environment, no settings, no login', () => {
  assert.equal(findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: emptyConfig, PATH: '/bin' } }), undefined);
  const blank = Object.fromEntries(MODEL_CREDENTIAL_VARIABLES.map((name) => [name, ' ']));
  assert.equal(findModelCredential({ processEnv: { ...blank, CLAUDE_CONFIG_DIR: emptyConfig } }), undefined);
});

test('each variable counts in the environment, and wins over settings and login', async () => {
  for (const variable of MODEL_CREDENTIAL_VARIABLES) {
    assert.deepEqual(findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: emptyConfig, [variable]: 'x' } }), {
      source: 'environment',
      variable,
    });
  }
  const everything = await configDir('everything', {
    'settings.json': { env: { ANTHROPIC_API_KEY: 'from-settings' } },
    '.credentials.json': { claudeAiOauth: { accessToken: 'a' } },
  });
  const found = findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: everything, CLAUDE_CODE_OAUTH_TOKEN: 't' } });
  assert.deepEqual(found, { source: 'environment', variable: 'CLAUDE_CODE_OAUTH_TOKEN' });
});

test('the user settings file under CLAUDE_CONFIG_DIR counts, read the way the sidecar layers it', async () => {
  const dir = await configDir('settings', {
    'settings.json': { env: { ANTHROPIC_BASE_URL: 'http://proxy', OTHER: 1 } },
  });
  assert.deepEqual(findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: dir } }), {
    source: 'settings',
    variable: 'ANTHROPIC_BASE_URL',
  });
  const numeric = await configDir('numeric', { 'settings.json': { env: { ANTHROPIC_API_KEY: 7 } } });
  assert.equal(findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: numeric } }), undefined, 'only strings');
});

test('with a cwd, the project settings above it count too', async () => {
  const project = join(root, 'project');
  const cwd = join(project, 'packages', 'app');
  await mkdir(cwd, { recursive: true });
  await configDir(join('project', '.claude'), { 'settings.local.json': { env: { ANTHROPIC_AUTH_TOKEN: 'tok' } } });
  assert.equal(findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: emptyConfig } }), undefined);
  assert.deepEqual(findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: emptyConfig }, cwd }), {
    source: 'settings',
    variable: 'ANTHROPIC_AUTH_TOKEN',
  });
});

test('a Claude login counts when its credentials file holds something', async () => {
  const loggedIn = await configDir('login', { '.credentials.json': { claudeAiOauth: { accessToken: 'a' } } });
  assert.deepEqual(findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: loggedIn } }), {
    source: 'login',
    path: join(loggedIn, '.credentials.json'),
  });
  for (const [name, content] of [
    ['empty-object', {}],
    ['empty-file', ''],
    ['broken', '{"claudeAiOauth":'],
  ] as const) {
    const dir = await configDir(name, { '.credentials.json': content });
    assert.equal(findModelCredential({ processEnv: { CLAUDE_CONFIG_DIR: dir } }), undefined, name);
  }
});
