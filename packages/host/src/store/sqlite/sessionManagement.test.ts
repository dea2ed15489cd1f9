import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { sessionSummary } from '../../projection/views.ts';
import { testInteraction, testSession, testTextMessage, testTurn, testUserTask } from '../testRecords.ts';
import { migrate, migrations } from './migrations.ts';
import { SqliteHostStore } from './sqliteHostStore.ts';

/*
 * The store's part of session management (issue 17): the archive column and its list filter, a delete that
 * leaves nothing of the session (rows, its event log, the host log's events about it) and nothing of any
 * other, the search over titles and prompts (literal text, newest first, fast over hundreds of sessions),
 * and the recent working directories.
 */

function openStore() {
  return SqliteHostStore.open({ path: ':memory:' });
}

async function addSession(store: SqliteHostStore, id: string, prompts: string[], overrides = {}) {
  const session = testSession(id, overrides);
  await store.commit({
    sessions: [session],
    turns: prompts.map((prompt, ordinal) =>
      testTurn(id, `${id}-t${ordinal}`, ordinal, { prompt, status: 'completed', endedAt: 3_000 }),
    ),
    messages: prompts.map((_, ordinal) => testTextMessage(id, `${id}-t${ordinal}`, ordinal, 'an answer')),
    hostEvents: [{ type: 'session', data: { session: sessionSummary(session) } }],
    sessionEvents: [{ type: 'title', data: { session_id: id, title: session.title } }],
  });
}

test('migration 5 adds archived_at to an older database; its sessions read as not archived', () => {
  const db = new DatabaseSync(':memory:');
  migrate(db, { target: 4 });
  db.exec(`INSERT INTO sessions (id, title, title_source, cwd, closed, status, needs_input_count, settings,
    config_options, provider_session_id, usage, background_tasks, created_at, updated_at, last_activity_at)
    VALUES ('old', 't', 'default', '/w', 0, 'idle', 0, '{}', '[]', 'p', '{}', '[]', 1, 1, 1)`);
  assert.equal(migrate(db, { migrations, target: 5 }).join(), '5');
  assert.equal(db.prepare('SELECT archived_at FROM sessions').get()?.archived_at, null);
});

test('an archived session is left out of the default list, listed with include and alone with only', async () => {
  const store = openStore();
  await addSession(store, 'a', []);
  await addSession(store, 'b', [], { archivedAt: 5_000, createdAt: 2_000 });
  await addSession(store, 'c', [], { closed: true, createdAt: 3_000 });
  const ids = async (archived: 'exclude' | 'include' | 'only', includeClosed = true) =>
    (await store.listSessions({ includeClosed, archived })).map((session) => session.id);
  assert.deepEqual(await ids('exclude'), ['c', 'a']);
  assert.deepEqual(await ids('include'), ['c', 'b', 'a']);
  assert.deepEqual(await ids('only'), ['b']);
  assert.deepEqual(await ids('exclude', false), ['a']);
  assert.equal((await store.getSession('b'))?.archivedAt, 5_000);
  // Without a filter (the manager's recovery reads every session) archived ones are there.
  assert.equal((await store.listSessions({ includeClosed: true })).length, 3);
});

test('deleting a session removes every row and event of it and nothing of another; the host log says so', async () => {
  const store = openStore();
  await addSession(store, 'keep', ['keep me']);
  await addSession(store, 'gone', ['secret prompt', 'second']);
  await store.commit({
    interactions: [testInteraction('gone', 'r1', { turnId: 'gone-t0' })],
    tasks: [testUserTask('gone', 'task-1')],
    attachments: [
      {
        id: 'att',
        sessionId: 'gone',
        turnId: 'gone-t0',
        mediaType: 'image/png',
        bytes: new Uint8Array([1]),
        createdAt: 1,
      },
    ],
    hostEvents: [
      { type: 'permission_request', data: { session_id: 'gone', interaction: testInteraction('gone', 'r1') } },
    ],
  });
  const before = await store.lastHostSeq();
  const result = await store.commit({
    deleteSessionIds: ['gone'],
    hostEvents: [{ type: 'session_deleted', data: { session_id: 'gone' } }],
  });
  assert.deepEqual(
    result.hostEvents.map((event) => event.type),
    ['session_deleted'],
  );
  assert.equal(result.hostEvents[0]?.data.seq, before + 1, 'the host log continues from its last seq');
  assert.equal(await store.getSession('gone'), undefined);
  assert.deepEqual(await store.listTurns('gone'), []);
  assert.deepEqual((await store.listMessages('gone', { limit: 100 })).messages, []);
  assert.deepEqual(await store.listInteractions({ sessionId: 'gone' }), []);
  assert.deepEqual(await store.listTasks('gone'), []);
  assert.equal(await store.getAttachment('att'), undefined);
  assert.deepEqual(await store.readSessionEvents('gone', 0, 100), []);
  const hostLog = await store.readHostEvents(0, 100);
  assert.deepEqual(
    hostLog.map((event) => event.type),
    ['session', 'session_deleted'],
    'only the kept session’s event and the deletion remain',
  );
  assert.ok(!JSON.stringify(hostLog).includes('session gone'), 'no title of the deleted session is left');
  assert.equal((await store.getSession('keep'))?.id, 'keep');
  assert.equal((await store.listTurns('keep')).length, 1);
  assert.equal((await store.readSessionEvents('keep', 0, 100)).length, 1);
});

test('search finds titles and prompts case-insensitively, literally (no wildcards), newest first', async () => {
  const store = openStore();
  await addSession(store, 'old', ['Fix the LOGIN page'], { title: 'Auth work', createdAt: 1_000 });
  await addSession(store, 'new', ['unrelated'], { title: 'Login redesign', createdAt: 2_000 });
  await addSession(store, 'pct', ['make it 100% faster', 'a_b'], { title: 'Perf', createdAt: 3_000 });
  const found = async (text: string) =>
    (await store.searchSessions(text, { includeClosed: true }, 10)).map((hit) => [
      hit.session.id,
      hit.prompt?.text ?? null,
    ]);
  assert.deepEqual(await found('login'), [
    ['new', null],
    ['old', 'Fix the LOGIN page'],
  ]);
  assert.deepEqual(await found('100%'), [['pct', 'make it 100% faster']]);
  assert.deepEqual(await found('%'), [['pct', 'make it 100% faster']], '% is a character, not a wildcard');
  assert.deepEqual(await found('a_b'), [['pct', 'a_b']]);
  assert.deepEqual(await found('x_y'), [], '_ is a character, not a wildcard');
  assert.deepEqual(await found('nowhere'), []);
  await store.commit({
    sessions: [{ ...testSession('old', { title: 'Auth work', createdAt: 1_000 }), archivedAt: 9 }],
  });
  assert.deepEqual(
    (await store.searchSessions('login', { includeClosed: true, archived: 'exclude' }, 10)).map((h) => h.session.id),
    ['new'],
  );
});

test('search over 500 sessions of 20 prompts each answers in milliseconds', async () => {
  const store = openStore();
  for (let index = 0; index < 500; index++) {
    const prompts = Array.from(
      { length: 20 },
      (_, turn) => `session ${index} prompt ${turn} about the parser ${'x'.repeat(200)}`,
    );
    if (index === 250) prompts[7] = 'the one about the flaky websocket test';
    await addSession(store, `s${index}`, prompts, { createdAt: 10_000 + index });
  }
  const times: number[] = [];
  let hits: Awaited<ReturnType<typeof store.searchSessions>> = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    hits = await store.searchSessions('websocket', { includeClosed: true }, 51);
    times.push(performance.now() - started);
  }
  assert.deepEqual(
    hits.map((hit) => hit.session.id),
    ['s250'],
  );
  const median = times.sort((a, b) => a - b)[2]!;
  console.log(`search over 500 sessions × 20 prompts: median ${median.toFixed(1)} ms`);
  assert.ok(median < 200, `median ${median} ms`);
});

test('recent working directories: distinct, most recently active first, worktree sessions left out', async () => {
  const store = openStore();
  await addSession(store, 'a', [], { cwd: '/w/one', lastActivityAt: 1_000 });
  await addSession(store, 'b', [], { cwd: '/w/two', lastActivityAt: 3_000 });
  await addSession(store, 'c', [], { cwd: '/w/one', lastActivityAt: 5_000 });
  await addSession(store, 'd', [], {
    cwd: '/data/worktrees/x',
    lastActivityAt: 9_000,
    worktree: {
      repoRoot: '/w/one',
      path: '/data/worktrees/x',
      branch: 'b',
      baseBranch: 'main',
      baseCommit: 'c',
      state: 'active',
      mergedCommit: null,
    },
  });
  assert.deepEqual(await store.recentCwds(10), [
    { cwd: '/w/one', lastUsedAt: 5_000 },
    { cwd: '/w/two', lastUsedAt: 3_000 },
  ]);
  assert.equal((await store.recentCwds(1)).length, 1);
});
