import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HistoryTranscriptRecord } from '../hostStore.ts';
import { testSession, testTurn } from '../testRecords.ts';
import { SqliteHostStore } from './sqliteHostStore.ts';

/* The history's index in the store (migration 8): rows put whole by path, dropped by path, in one transaction. */

function record(path: string, id: string, overrides: Partial<HistoryTranscriptRecord> = {}): HistoryTranscriptRecord {
  return {
    path,
    claudeSessionId: id,
    cwd: '/work/app',
    summary: 'Fix the build',
    firstPrompt: 'fix it',
    customTitle: null,
    gitBranch: 'main',
    createdAt: 1_000,
    mtimeMs: 2_000,
    size: 300,
    messageCount: 4,
    indexedAt: 3_000,
    ...overrides,
  };
}

test('index rows are put whole, found by session id newest first, and dropped by path', async () => {
  const store = SqliteHostStore.open({ path: ':memory:' });
  const a = record('/p/one/a.jsonl', 'a');
  const unreadable = record('/p/one/b.jsonl', 'b', {
    cwd: null,
    summary: null,
    firstPrompt: null,
    gitBranch: null,
    createdAt: null,
    messageCount: 0,
  });
  const copy = record('/p/two/a.jsonl', 'a', { mtimeMs: 9_000 });
  await store.updateHistoryTranscripts([a, unreadable, copy], []);
  assert.deepEqual(
    (await store.listHistoryTranscripts()).sort((x, y) => x.path.localeCompare(y.path)),
    [a, unreadable, copy],
  );
  assert.deepEqual(await store.findHistoryTranscripts('a'), [copy, a]);

  const grown = { ...a, size: 400, customTitle: 'Renamed' };
  await store.updateHistoryTranscripts([grown], [copy.path]);
  assert.deepEqual(await store.findHistoryTranscripts('a'), [grown]);
  assert.deepEqual(await store.findHistoryTranscripts('b'), [unreadable]);
  await store.close();
  await assert.rejects(store.listHistoryTranscripts(), /closed/);
});

test('the owners of Claude Code session ids: every session and every turn that ran as one', async () => {
  const store = SqliteHostStore.open({ path: ':memory:' });
  await store.commit({
    sessions: [
      testSession('s1', { providerSessionId: 'x' }),
      testSession('s2', { providerSessionId: 'y', closed: true }),
    ],
    turns: [testTurn('s1', 't1', 0, { providerSessionId: 'z' }), testTurn('s1', 't2', 1, { providerSessionId: 'x' })],
  });
  const owners = (await store.listProviderSessionOwners()).sort((a, b) =>
    `${a.providerSessionId}${a.sessionId}`.localeCompare(`${b.providerSessionId}${b.sessionId}`),
  );
  assert.deepEqual(owners, [
    { providerSessionId: 'x', sessionId: 's1', closed: false, createdAt: 1_000 },
    { providerSessionId: 'y', sessionId: 's2', closed: true, createdAt: 1_000 },
    { providerSessionId: 'z', sessionId: 's1', closed: false, createdAt: 1_000 },
  ]);
  await store.close();
});
