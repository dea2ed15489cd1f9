import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { claudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import { SqliteHostStore } from '../store/sqlite/sqliteHostStore.ts';
import { HistoryIndex, type IndexSdk } from './historyIndex.ts';
import { projectFolderName, writeTranscript } from './testing/generatedHistory.ts';

/*
 * The index reads only what changed: every SDK call is counted (the real SDK, in its worker thread, over
 * transcripts written in Claude Code 2.1's format), and a refresh with nothing changed makes none.
 */

let dir: string;
let configDir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'history-index-'));
  configDir = join(dir, 'config');
});
after(() => rm(dir, { recursive: true, force: true }));

function countingSdk(config = configDir): IndexSdk & { calls: Record<string, number> } {
  const sdk = claudeHistorySdk(config);
  const calls: Record<string, number> = { listSessions: 0, getSessionInfo: 0, getSessionMessages: 0 };
  return {
    calls,
    listSessions: (...args) => {
      calls.listSessions! += 1;
      return sdk.listSessions(...args);
    },
    getSessionInfo: (...args) => {
      calls.getSessionInfo! += 1;
      return sdk.getSessionInfo(...args);
    },
    getSessionMessages: (...args) => {
      calls.getSessionMessages! += 1;
      return sdk.getSessionMessages(...args);
    },
  };
}

const reset = (calls: Record<string, number>) => {
  for (const key of Object.keys(calls)) calls[key] = 0;
};

test('a refresh reads new and changed transcripts only, drops gone ones, and keeps the rows across runs', {
  timeout: 60_000,
}, async () => {
  const store = SqliteHostStore.open({ path: join(dir, 'host.db') });
  const sdk = countingSdk();
  const cwd = join(dir, 'work', 'app');
  const written = await Promise.all(
    [0, 1, 2].map((n) => writeTranscript(configDir, { cwd, messages: 6 + n * 4, firstPrompt: `prompt ${n}` })),
  );
  // A subagent's transcript in the session's own folder is not a session.
  await mkdir(join(configDir, 'projects', projectFolderName(cwd), written[0]!.sessionId, 'subagents'), {
    recursive: true,
  });
  await writeFile(
    join(configDir, 'projects', projectFolderName(cwd), written[0]!.sessionId, 'subagents', 'agent-a1.jsonl'),
    '{}\n',
  );
  const index = new HistoryIndex({ configDir, store, sdk, listAllAt: 1000 });

  assert.deepEqual(await index.refresh(), { read: 3, dropped: 0, failed: 0 });
  assert.deepEqual(sdk.calls, { listSessions: 0, getSessionInfo: 3, getSessionMessages: 3 });
  const byId = new Map([...index.records()].map((record) => [record.claudeSessionId, record]));
  for (const transcript of written) {
    const record = byId.get(transcript.sessionId);
    assert.equal(record?.cwd, cwd);
    assert.equal(record?.messageCount, transcript.messages);
    assert.equal(record?.size, transcript.bytes);
    assert.equal(record?.gitBranch, 'main');
  }
  assert.equal(byId.get(written[1]!.sessionId)?.firstPrompt, 'prompt 1');

  reset(sdk.calls);
  assert.deepEqual(await index.refresh(), { read: 0, dropped: 0, failed: 0 });
  assert.deepEqual(sdk.calls, { listSessions: 0, getSessionInfo: 0, getSessionMessages: 0 });

  // One grows, one goes: one read, one row dropped.
  await appendFile(
    written[1]!.path,
    `${JSON.stringify({ type: 'custom-title', customTitle: 'Renamed', sessionId: written[1]!.sessionId })}\n`,
  );
  await rm(written[2]!.path);
  assert.deepEqual(await index.refresh(), { read: 1, dropped: 1, failed: 0 });
  assert.deepEqual(sdk.calls, { listSessions: 0, getSessionInfo: 1, getSessionMessages: 1 });
  assert.equal(index.recordsOf(written[1]!.sessionId)[0]?.customTitle, 'Renamed');
  assert.deepEqual(index.recordsOf(written[2]!.sessionId), []);

  // Another run of the host: the stored rows are current, nothing is read.
  reset(sdk.calls);
  const again = new HistoryIndex({ configDir, store, sdk });
  assert.deepEqual(await again.refresh(), { read: 0, dropped: 0, failed: 0 });
  assert.deepEqual(sdk.calls, { listSessions: 0, getSessionInfo: 0, getSessionMessages: 0 });
  assert.equal([...again.records()].length, 2);
  await store.close();
});

test('many new transcripts are summarised in one listSessions pass; one it cannot summarise is kept without a cwd', {
  timeout: 60_000,
}, async () => {
  const config = join(dir, 'bulk');
  const store = SqliteHostStore.open({ path: ':memory:' });
  const counted = countingSdk(config);
  const { calls } = counted;

  const cwd = join(dir, 'work', 'bulk');
  await Promise.all([0, 1, 2, 3].map(() => writeTranscript(config, { cwd, messages: 4 })));
  const folder = join(config, 'projects', projectFolderName(cwd));
  const empty = '11111111-1111-4111-8111-111111111111';
  const corrupt = '22222222-2222-4222-8222-222222222222';
  await writeFile(join(folder, `${empty}.jsonl`), '');
  await writeFile(join(folder, `${corrupt}.jsonl`), 'not json\n{"cut');
  await writeFile(join(folder, 'notes.txt'), 'not a transcript');

  const index = new HistoryIndex({ configDir: config, store, sdk: counted, listAllAt: 3 });
  assert.deepEqual(await index.refresh(), { read: 6, dropped: 0, failed: 0 });
  // The pass skips the two it cannot summarise; each is asked about alone, and has no conversation to count.
  assert.deepEqual(calls, { listSessions: 1, getSessionInfo: 2, getSessionMessages: 4 });
  const unreadable = [...index.records()]
    .filter((record) => record.cwd === null)
    .map((record) => record.claudeSessionId);
  assert.deepEqual(unreadable.sort(), [empty, corrupt]);
  assert.equal((await store.listHistoryTranscripts()).length, 6);

  // Not read again until it changes.
  calls.getSessionInfo = 0;
  assert.deepEqual(await index.refresh(), { read: 0, dropped: 0, failed: 0 });
  assert.equal(calls.getSessionInfo, 0);
  await store.close();
});

test('a read the SDK fails leaves no row, and the next refresh tries it again', { timeout: 30_000 }, async () => {
  const config = join(dir, 'failing');
  const store = SqliteHostStore.open({ path: ':memory:' });
  await writeTranscript(config, { cwd: join(dir, 'work', 'f'), messages: 4 });
  const real = claudeHistorySdk(config);
  let fail = true;
  const failures: unknown[] = [];
  const index = new HistoryIndex({
    configDir: config,
    store,
    sdk: {
      listSessions: real.listSessions,
      getSessionInfo: (...args) => (fail ? Promise.reject(new Error('worker gone')) : real.getSessionInfo(...args)),
      getSessionMessages: real.getSessionMessages,
    },
    onReadFailed: (error) => failures.push(error),
  });
  assert.deepEqual(await index.refresh(), { read: 0, dropped: 0, failed: 1 });
  assert.equal(failures.length, 1);
  fail = false;
  assert.deepEqual(await index.refresh(), { read: 1, dropped: 0, failed: 0 });
  await store.close();
});

test('refreshes asked for while one runs are coalesced into one more', { timeout: 30_000 }, async () => {
  const config = join(dir, 'coalesce');
  const store = SqliteHostStore.open({ path: ':memory:' });
  const cwd = join(dir, 'work', 'c');
  await writeTranscript(config, { cwd, messages: 4 });
  const sdk = countingSdk(config);
  const index = new HistoryIndex({ configDir: config, store, sdk });
  const first = index.refresh();
  const folder = join(config, 'projects', projectFolderName(cwd));
  const [second, third] = [index.refresh([folder]), index.refresh()];
  await Promise.all([first, second, third]);
  await index.settled();
  assert.equal(sdk.calls.getSessionInfo, 1, 'the follow-up refresh found nothing new');
  await store.close();
});
