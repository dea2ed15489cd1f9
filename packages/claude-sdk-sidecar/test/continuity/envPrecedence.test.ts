import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type MockAnthropic, startMockAnthropic } from '@outrigger/mock-anthropic';
import type { StartResult } from '@outrigger/protocol';
import { spawnSidecar } from '../../src/testing/spawnSidecar.ts';
import { assistantTextOf, type ContinuityRig, runTurn, startContinuityRig } from './continuityHarness.ts';
import { startHeaderRecordingProxy } from './headerRecordingProxy.ts';

/*
 * The Query env layering through the real sidecar process. The sidecar's own env points Claude Code at
 * mock A; project settings point it at mock B. Claude Code must call B, as it would in a terminal in that
 * directory, and a malformed settings file beside the good one must not stop anything. Claude Code on its
 * own reads only the cwd's project settings, so the ancestor case shows the sidecar's own layering.
 * In the first case the user settings file names A too, and the project layer outranks it. (Claude Code
 * applies the user settings env over the env it was given, so a user-settings key beats an ancestor layer:
 * the ancestor case runs without one.)
 */

const SESSION = 'continuity-env';
const NESTED_SESSION = 'continuity-env-nested';
const CREDENTIALS_SESSION = 'continuity-env-credentials';

let rig: ContinuityRig;
let mockB: MockAnthropic;
let projectDir = '';
let nestedDir = '';

async function writeSettings(dir: string, name: string, text: string): Promise<void> {
  await mkdir(join(dir, '.claude'), { recursive: true });
  await writeFile(join(dir, '.claude', name), text);
}

before(async () => {
  rig = await startContinuityRig({
    rules: [(request) => ({ content: [{ type: 'text', text: `Mock A answered: ${request.lastUserText}` }] })],
  });
  mockB = await startMockAnthropic({
    rules: [(request) => ({ content: [{ type: 'text', text: `Mock B answered: ${request.lastUserText}` }] })],
  });
  projectDir = join(rig.home.cwd, 'project');
  await mkdir(projectDir);
  // A shallower project layer also names A: the deeper directory must win over it.
  await writeSettings(rig.home.cwd, 'settings.json', JSON.stringify({ env: { ANTHROPIC_BASE_URL: rig.mock.url } }));
  await writeSettings(projectDir, 'settings.json', '{"env": {"ANTHROPIC_BASE_URL": ');
  await writeSettings(projectDir, 'settings.local.json', JSON.stringify({ env: { ANTHROPIC_BASE_URL: mockB.url } }));
  nestedDir = join(rig.home.cwd, 'monorepo', 'packages', 'app');
  await mkdir(nestedDir, { recursive: true });
  await writeSettings(
    join(rig.home.cwd, 'monorepo'),
    'settings.local.json',
    JSON.stringify({ env: { ANTHROPIC_BASE_URL: mockB.url } }),
  );
});

after(async () => {
  await rig?.dispose([SESSION, NESTED_SESSION]);
  await mockB?.close();
});

test('a base URL set in the project settings.local.json beats the user settings and the env', async (t) => {
  const { sidecar, mock: mockA } = rig;
  assert.equal(rig.home.env.ANTHROPIC_BASE_URL, mockA.url, 'precondition: the sidecar env names mock A');
  const userSettings = join(rig.home.configDir, 'settings.json');
  await writeFile(userSettings, JSON.stringify({ env: { ANTHROPIC_BASE_URL: mockA.url } }));
  t.after(() => rm(userSettings, { force: true }));
  const started = await sidecar.request<StartResult>('start', {
    agentSessionId: SESSION,
    cwd: projectDir,
    permissionModeId: 'default',
  });
  assert.ok(started.providerSessionId, 'start succeeded despite the malformed .claude/settings.json');

  const { turnId, terminal } = await runTurn(sidecar, SESSION, 'which server answers?');
  assert.equal(terminal.type, 'turn_completed', `the turn completed: ${JSON.stringify(terminal.payload)}`);
  assert.equal(assistantTextOf(sidecar.events, turnId), 'Mock B answered: which server answers?');
  assert.ok(mockB.messageRequests().length > 0, 'mock B received the model requests');
  assert.equal(mockA.messageRequests().length, 0, 'mock A received none');
  assert.deepEqual(mockB.unmatched, []);
  assert.deepEqual(sidecar.protocolErrors, [], 'every event matches the protocol schemas');
});

test('settings.local.json of an ancestor directory outranks a shallower settings.json', async () => {
  const { sidecar, mock: mockA } = rig;
  await sidecar.request('close', { agentSessionId: SESSION });
  const requestsToB = mockB.messageRequests().length;
  await sidecar.request<StartResult>('start', {
    agentSessionId: NESTED_SESSION,
    cwd: nestedDir,
    permissionModeId: 'default',
  });
  const { turnId, terminal } = await runTurn(sidecar, NESTED_SESSION, 'who answers in the nested package?');
  assert.equal(terminal.type, 'turn_completed', `the turn completed: ${JSON.stringify(terminal.payload)}`);
  assert.equal(assistantTextOf(sidecar.events, turnId), 'Mock B answered: who answers in the nested package?');
  assert.ok(mockB.messageRequests().length > requestsToB, 'mock B received the model requests');
  assert.equal(mockA.messageRequests().length, 0, 'mock A received none');
});

test('a bearer token and base URL set only in a settings file reach the API as Authorization: Bearer', async () => {
  await rig.sidecar.request('close', { agentSessionId: NESTED_SESSION });
  const token = `settings-token-${randomUUID()}`;
  const proxy = await startHeaderRecordingProxy(mockB.url, 'authorization');
  const credentialsDir = join(rig.home.cwd, 'credentials');
  await mkdir(credentialsDir);
  await writeSettings(
    credentialsDir,
    'settings.local.json',
    JSON.stringify({ env: { ANTHROPIC_BASE_URL: proxy.url, ANTHROPIC_AUTH_TOKEN: token } }),
  );
  // The sidecar's own env carries no credential and no base URL at all.
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_BASE_URL: _url, ...bareEnv } = rig.home.env;
  assert.equal(bareEnv.ANTHROPIC_AUTH_TOKEN, undefined, 'precondition: no token in the env');
  const sidecar = await spawnSidecar({ env: bareEnv, cwd: rig.home.cwd, requestTimeoutMs: 30_000 });
  try {
    const requestsToB = mockB.messageRequests().length;
    await sidecar.request<StartResult>('start', {
      agentSessionId: CREDENTIALS_SESSION,
      cwd: credentialsDir,
      permissionModeId: 'default',
    });
    const { turnId, terminal } = await runTurn(sidecar, CREDENTIALS_SESSION, 'who holds the token?');
    assert.equal(terminal.type, 'turn_completed', `the turn completed: ${JSON.stringify(terminal.payload)}`);
    assert.equal(assistantTextOf(sidecar.events, turnId), 'Mock B answered: who holds the token?');
    const messageCalls = mockB.messageRequests().length - requestsToB;
    assert.ok(messageCalls > 0, 'the model requests went through the proxy to mock B');
    assert.ok(proxy.values.length >= messageCalls, 'the proxy saw every request');
    assert.deepEqual(
      [...new Set(proxy.values)],
      [`Bearer ${token}`],
      'every request carried the settings token as a bearer credential',
    );
    assert.equal(rig.mock.messageRequests().length, 0, 'mock A, named by an ancestor settings file, received none');
    await sidecar.request('close', { agentSessionId: CREDENTIALS_SESSION });
    assert.deepEqual(await sidecar.stop({ timeoutMs: 10_000 }), { code: 0, signal: null });
    assert.deepEqual(
      sidecar.stderrLines.filter((line) => line.includes(token)),
      [],
      'the token never reaches the sidecar stderr',
    );
  } finally {
    await sidecar.stop({ timeoutMs: 10_000 });
    await proxy.close();
  }
});
