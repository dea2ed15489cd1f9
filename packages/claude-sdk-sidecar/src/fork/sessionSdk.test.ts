import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { projectKey } from '../goals/goalTranscript.ts';
import { claudeHistorySdk, sessionSdkForConfigDir } from './configDirSessionSdk.ts';
import { claudeSessionSdk } from './sessionSdk.ts';

const SESSION = '33333333-3333-4333-8333-333333333333';
const USER_UUID = 'aaaaaaaa-0000-4000-8000-000000000001';
const ASSISTANT_UUID = 'aaaaaaaa-0000-4000-8000-000000000002';
let root: string;
let configDir: string;
let cwd: string;

/** A minimal transcript where Claude Code keeps it: `<config>/projects/<cwd, non-alphanumerics as '-'>/<id>.jsonl`. */
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-session-sdk-'));
  configDir = join(root, 'config');
  cwd = join(root, 'work');
  const projectDir = join(configDir, 'projects', projectKey(cwd));
  await mkdir(projectDir, { recursive: true });
  const base = {
    sessionId: SESSION,
    cwd,
    isSidechain: false,
    userType: 'external',
    timestamp: '2026-01-01T00:00:00.000Z',
  };
  const entries = [
    { ...base, type: 'user', uuid: USER_UUID, parentUuid: null, message: { role: 'user', content: 'hello' } },
    {
      ...base,
      type: 'assistant',
      uuid: ASSISTANT_UUID,
      parentUuid: USER_UUID,
      message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
    },
  ];
  await writeFile(
    join(projectDir, `${SESSION}.jsonl`),
    `${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`,
  );
});

after(() => rm(root, { recursive: true, force: true }));

test('the same config dir as this process, or none, uses the SDK functions directly', () => {
  assert.equal(sessionSdkForConfigDir(undefined), claudeSessionSdk);
  assert.equal(sessionSdkForConfigDir(' '), claudeSessionSdk);
  assert.equal(sessionSdkForConfigDir(process.env.CLAUDE_CONFIG_DIR ?? ''), claudeSessionSdk);
});

test('another config dir is read in isolation, without touching this process env', { timeout: 30_000 }, async () => {
  const before = process.env.CLAUDE_CONFIG_DIR;
  assert.deepEqual(await claudeSessionSdk.getSessionMessages(SESSION, { dir: cwd }), []);
  const sdk = sessionSdkForConfigDir(configDir);
  const [messages, info] = await Promise.all([
    sdk.getSessionMessages(SESSION, { dir: cwd }),
    sdk.getSessionInfo(SESSION, { dir: cwd }),
  ]);
  assert.deepEqual(
    messages.map((message) => [message.type, message.uuid]),
    [
      ['user', USER_UUID],
      ['assistant', ASSISTANT_UUID],
    ],
  );
  assert.equal(info?.sessionId, SESSION);
  assert.equal(process.env.CLAUDE_CONFIG_DIR, before);
});

test('SDK errors cross the worker with their name and exact message', { timeout: 30_000 }, async () => {
  await assert.rejects(sessionSdkForConfigDir(configDir).forkSession(SESSION, { dir: cwd, upToMessageId: 'gone' }), {
    name: 'TelemetrySafeError',
    message: `Message gone not found in session ${SESSION}`,
  });
});

test('the history functions list and read another config dir from a worker', { timeout: 30_000 }, async () => {
  const sdk = claudeHistorySdk(configDir);
  const [sessions, subagents] = await Promise.all([sdk.listSessions(), sdk.listSubagents(SESSION, { dir: cwd })]);
  assert.deepEqual(
    sessions.map((session) => [session.sessionId, session.cwd, session.firstPrompt]),
    [[SESSION, cwd, 'hello']],
  );
  assert.deepEqual(subagents, []);
  assert.deepEqual(await sdk.getSubagentMessages(SESSION, 'no-such-agent', { dir: cwd }), []);
});

test('a history reader given a worker file that does not exist fails its calls, not the process', {
  timeout: 30_000,
}, async () => {
  const missing = new URL('./no-such-worker.js', import.meta.url);
  await assert.rejects(claudeHistorySdk(configDir, missing).listSessions());
});
