import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, test } from 'node:test';
import type { SessionEventDraft, WriteUnit } from '../hostStore.ts';
import { StoreError } from '../storeError.ts';
import {
  testInteraction,
  testSession,
  testTextMessage,
  testToolMessage,
  testTurn,
  testUserTask,
} from '../testRecords.ts';
import { latestSchemaVersion, migrate, migrations, schemaVersion } from './migrations.ts';
import { SqliteHostStore } from './sqliteHostStore.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'outrigger-store-'));
  dirs.push(dir);
  return join(dir, 'host.db');
}

function statusEvent(sessionId: string): SessionEventDraft {
  return {
    type: 'status',
    data: {
      session_id: sessionId,
      status: 'idle',
      closed: false,
      needsInputCount: 0,
      runningTurnId: null,
      queuePaused: false,
      lastError: null,
    },
  };
}

function textEvent(sessionId: string, turnId: string, delta: string): SessionEventDraft {
  return {
    type: 'text',
    data: { session_id: sessionId, turnId, messageId: 'm-1', delta, final: false, interrupted: false },
  };
}

/** An in-memory store whose commits fail (with `message`, before COMMIT) while `failing(true)`. */
function storeFailingOnDemand(message: string) {
  let fail = false;
  const store = SqliteHostStore.open({
    path: ':memory:',
    beforeCommit: () => {
      if (fail) throw new Error(message);
    },
  });
  return { store, failing: (on: boolean) => (fail = on) };
}

async function storeWithSession(path = ':memory:', sessionId = 's1') {
  const store = SqliteHostStore.open({ path });
  await store.commit({ sessions: [testSession(sessionId)], turns: [testTurn(sessionId, 't1', 0)] });
  return store;
}

test('an empty database is migrated to the latest version, and re-opening applies nothing', async () => {
  const path = tempDbPath();
  const store = SqliteHostStore.open({ path });
  await store.close();
  const db = new DatabaseSync(path);
  assert.equal(schemaVersion(db), latestSchemaVersion);
  assert.deepEqual(migrate(db), [], 're-opening an up-to-date database applies no migration');
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((row) => row.name);
  assert.deepEqual(tables, [
    'attachments',
    'history_transcripts',
    'host_events',
    'interactions',
    'messages',
    'schema_version',
    'session_events',
    'sessions',
    'tasks',
    'turns',
  ]);
  assert.equal(db.prepare('PRAGMA journal_mode').get()?.journal_mode, 'wal');
  db.close();
  const reopened = SqliteHostStore.open({ path });
  assert.deepEqual(await reopened.listSessions({ includeClosed: true }), []);
  await reopened.close();
});

test('migrations run in order from any older version, one transaction each', () => {
  const db = new DatabaseSync(':memory:');
  const steps = [
    ...migrations,
    { version: latestSchemaVersion + 1, sql: 'CREATE TABLE extra_a (x INTEGER)' },
    { version: latestSchemaVersion + 2, sql: 'CREATE TABLE extra_b (x INTEGER); CREATE TABLE broken (' },
  ];
  assert.deepEqual(migrate(db, { migrations: steps, target: latestSchemaVersion + 1 }), [
    ...migrations.map((m) => m.version),
    latestSchemaVersion + 1,
  ]);
  assert.throws(() => migrate(db, { migrations: steps }), StoreError);
  assert.equal(schemaVersion(db), latestSchemaVersion + 1, 'the failed migration left no trace');
  assert.equal(
    db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra_b'").get(),
    undefined,
    'the failed migration rolled back its first statement too',
  );
  db.close();
});

test('a database newer than this code is refused', async () => {
  const path = tempDbPath();
  (await storeWithSession(path)).close();
  const db = new DatabaseSync(path);
  db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, 0)').run(latestSchemaVersion + 5);
  db.close();
  assert.throws(() => SqliteHostStore.open({ path }), /newer than this host knows/);
});

test('every record type round-trips through a commit', async () => {
  const store = SqliteHostStore.open({ path: ':memory:' });
  const session = testSession('s1', {
    titleSource: 'user',
    closed: true,
    runningTurnId: 't1',
    runningTurnStartedAt: 2_000,
    lastError: { message: 'boom', code: 'sidecar_exited', apiErrorStatus: null },
    resumeCursor: { kind: 'claude-agent-sdk', version: 1, resume: 'r', turnCount: 2 },
    configOptions: [{ id: 'model', name: 'Model', type: 'select', currentValue: 'default', options: [] }],
    backgroundTasks: [
      {
        tool_use_id: 'tu',
        turnId: 't1',
        kind: 'agent',
        taskId: 'task',
        description: null,
        status: 'running',
        startedAt: 5,
      },
    ],
    forkedFrom: { sessionId: 's0', turnId: 't0' },
  });
  const turn = testTurn('s1', 't1', 0, {
    input: [{ type: 'image', attachmentId: 'a1', mediaType: 'image/png' }],
    clientMessageId: 'c1',
    providerTurnId: 'p1',
    providerSessionId: 'ps',
    checkpointMessageId: 'cp',
    cancelDisposition: 'provider_active',
    usage: {
      inputTokens: 1,
      outputTokens: null,
      cacheReadInputTokens: null,
      cacheCreationInputTokens: 0,
      costUsd: null,
    },
  });
  const message = testTextMessage('s1', 't1', 0, 'hello', { steer: true, clientMessageId: 'c2', role: 'user' });
  const tool = testToolMessage('s1', 't1', 1, 'tu', { content: 'x'.repeat(20_000), source: 'hook' });
  const interaction = testInteraction('s1', 'r1', {
    status: 'answered',
    answer: { action: 'allow', optionId: 'allow', payload: {} },
    resolution: 'answered',
    resolvedAt: 8,
  });
  const task = testUserTask('s1', 'user-1');
  const attachment = {
    id: 'a1',
    sessionId: 's1',
    turnId: 't1',
    mediaType: 'image/png' as const,
    bytes: new Uint8Array([1, 2, 3]),
    createdAt: 9,
  };
  await store.commit({
    sessions: [session],
    turns: [turn],
    attachments: [attachment],
    messages: [message, tool],
    interactions: [interaction],
    tasks: [task],
  });
  assert.deepEqual(await store.getSession('s1'), session);
  assert.deepEqual(await store.listSessions({ includeClosed: false }), [], 'closed sessions are left out');
  assert.deepEqual(await store.getTurn('s1', 't1'), turn);
  assert.deepEqual(await store.getMessage('s1', message.id), message);
  assert.deepEqual(await store.getToolMessage('s1', 'tu'), tool, 'the whole 20k result is kept');
  assert.deepEqual(await store.getInteraction('s1', 'r1'), interaction);
  assert.deepEqual(await store.listInteractions({ status: 'pending' }), []);
  assert.deepEqual(await store.getTask('user-1'), task);
  const stored = await store.getAttachment('a1');
  assert.deepEqual(Array.from(stored!.bytes), [1, 2, 3]);
  assert.deepEqual(await store.findClientMessage('s1', 'c1'), { turnId: 't1', steer: false });
  assert.deepEqual(await store.findClientMessage('s1', 'c2'), { turnId: 't1', steer: true });
  assert.equal(await store.findClientMessage('s1', 'nope'), undefined);

  const updated = { ...session, title: 'renamed', updatedAt: 99 };
  await store.commit({ sessions: [updated] });
  assert.deepEqual(await store.getSession('s1'), updated, 'a put replaces the whole row, children stay');
  assert.deepEqual(await store.getTurn('s1', 't1'), turn);

  // A put updates a row in place; its identity fields stay as first written.
  await store.commit({
    messages: [{ ...message, position: 99, role: 'assistant', content: [{ type: 'text', text: 'edited' }] }],
  });
  const edited = await store.getMessage('s1', message.id);
  assert.deepEqual([edited?.position, edited?.role, edited?.content], [0, 'user', [{ type: 'text', text: 'edited' }]]);
  await store.close();
});

test('seqs are per session and per host log, monotonic and gapless, also across commitMany', async () => {
  const store = SqliteHostStore.open({ path: ':memory:' });
  await store.commit({ sessions: [testSession('a'), testSession('b')] });
  const seen = new Map<string, number[]>();
  for (let i = 0; i < 50; i += 1) {
    const units: WriteUnit[] = [
      { sessionEvents: [statusEvent('a'), statusEvent('b')] },
      {
        sessionEvents: [statusEvent('a')],
        hostEvents: [
          {
            type: 'permission_resolved',
            data: { session_id: 'a', turnId: 't', requestId: `r${i}`, status: 'answered', resolution: 'answered' },
          },
        ],
      },
    ];
    const results =
      i % 2 === 0 ? await store.commitMany(units) : [await store.commit(units[0]!), await store.commit(units[1]!)];
    for (const result of results) {
      for (const event of result.sessionEvents) {
        const list = seen.get(event.data.session_id) ?? [];
        list.push(event.data.seq);
        seen.set(event.data.session_id, list);
      }
      for (const event of result.hostEvents) {
        const list = seen.get('host') ?? [];
        list.push(event.data.seq);
        seen.set('host', list);
      }
    }
  }
  const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  assert.deepEqual(seen.get('a'), range(100));
  assert.deepEqual(seen.get('b'), range(50));
  assert.deepEqual(seen.get('host'), range(50));
  assert.deepEqual(
    (await store.readSessionEvents('a', 0, 1000)).map((event) => event.data.seq),
    range(100),
    'the log holds exactly what was returned',
  );
  assert.equal(await store.lastSessionSeq('a'), 100);
  assert.equal(await store.lastSessionSeq('nobody'), 0);
  assert.equal(await store.lastHostSeq(), 50);
  assert.deepEqual(
    (await store.readSessionEvents('a', 95, 3)).map((event) => event.data.seq),
    [96, 97, 98],
    'reads page after a seq',
  );
  assert.deepEqual(
    (await store.readHostEvents(49, 10)).map((event) => event.data.seq),
    [50],
  );
  await store.close();
});

test('a stored event is the committed event: payload, seq and session_id as returned', async () => {
  const store = await storeWithSession();
  const { sessionEvents } = await store.commit({ sessionEvents: [textEvent('s1', 't1', 'hi')] });
  assert.deepEqual(sessionEvents, [
    {
      type: 'text',
      data: { session_id: 's1', seq: 1, turnId: 't1', messageId: 'm-1', delta: 'hi', final: false, interrupted: false },
    },
  ]);
  assert.deepEqual(await store.readSessionEvents('s1', 0, 10), sessionEvents);
  await store.close();
});

test('a transaction rolls back as a whole when any part fails: rows, events and seqs', async () => {
  const { store, failing } = storeFailingOnDemand('disk on fire');
  await store.commit({
    sessions: [testSession('s1')],
    turns: [testTurn('s1', 't1', 0)],
    sessionEvents: [statusEvent('s1')],
  });

  // A failing row (a message of an unknown turn) sinks the turn put and the events of the same unit.
  await assert.rejects(
    store.commit({
      turns: [testTurn('s1', 't2', 1)],
      messages: [testTextMessage('s1', 'no-such-turn', 0, 'x')],
      sessionEvents: [textEvent('s1', 't2', 'a')],
      hostEvents: [
        {
          type: 'permission_resolved',
          data: { session_id: 's1', turnId: 't', requestId: 'r', status: 'answered', resolution: 'answered' },
        },
      ],
    }),
    (error: unknown) => error instanceof StoreError && /FOREIGN KEY/.test(error.message),
  );
  assert.equal(await store.getTurn('s1', 't2'), undefined);

  // A failure at the very end (after every statement ran) loses everything too.
  failing(true);
  await assert.rejects(
    store.commit({ turns: [testTurn('s1', 't3', 2)], sessionEvents: [textEvent('s1', 't3', 'b')] }),
    /disk on fire/,
  );
  assert.equal(await store.getTurn('s1', 't3'), undefined);

  // One bad unit in a group commit sinks every unit of the group.
  failing(false);
  await assert.rejects(
    store.commitMany([
      { turns: [testTurn('s1', 't4', 3)], sessionEvents: [textEvent('s1', 't4', 'c')] },
      { sessionEvents: [statusEvent('no-such-session')] },
    ]),
    StoreError,
  );
  assert.equal(await store.getTurn('s1', 't4'), undefined);

  assert.equal(await store.lastSessionSeq('s1'), 1);
  assert.equal(await store.lastHostSeq(), 0);
  const next = await store.commit({ sessionEvents: [statusEvent('s1')] });
  assert.equal(next.sessionEvents[0]!.data.seq, 2, 'no seq was used up by the failed writes');
  assert.deepEqual(
    (await store.readSessionEvents('s1', 0, 10)).map((event) => event.data.seq),
    [1, 2],
  );
  await store.close();
});

test('task rows, deleted tasks and the events of one unit commit together; a refused unit leaves nothing', async () => {
  // What the task list should be is the projection's (taskProjection.test.ts): the store writes what it is given.
  const { store, failing } = storeFailingOnDemand('injected');
  await store.commit({ sessions: [testSession('s1'), testSession('s2')] });
  const a = testUserTask('s1', 'a');
  const b = testUserTask('s1', 'b', { sort_order: 1 });
  const other = testUserTask('s2', 'other');
  await store.commit({ tasks: [a, b, other] });
  const edited = { ...a, title: 'a!', updated_at: 9 };
  const c = testUserTask('s1', 'c', { sort_order: 2 });
  const after = [edited, c];
  const committed = await store.commit({
    tasks: [edited, c],
    deleteTaskIds: ['b'],
    sessionEvents: [{ type: 'tasks_changed', data: { session_id: 's1', tasks: after } }, statusEvent('s1')],
  });
  assert.deepEqual(await store.listTasks('s1'), after);
  assert.deepEqual(await store.listTasks('s2'), [other], 'another session’s rows are untouched');
  assert.deepEqual(
    committed.sessionEvents.map((event) => [event.type, event.data.seq]),
    [
      ['tasks_changed', 1],
      ['status', 2],
    ],
    'the drafts it was given, in order, nothing added',
  );
  assert.deepEqual(committed.sessionEvents[0]!.data, { session_id: 's1', tasks: after, seq: 1 });
  assert.deepEqual(await store.readSessionEvents('s1', 0, 10), committed.sessionEvents);

  failing(true);
  await assert.rejects(
    store.commit({
      tasks: [testUserTask('s1', 'd')],
      deleteTaskIds: ['a', 'c'],
      sessionEvents: [{ type: 'tasks_changed', data: { session_id: 's1', tasks: [] } }],
    }),
    StoreError,
  );
  assert.deepEqual(await store.listTasks('s1'), after, 'no row put, none deleted');
  assert.equal(await store.lastSessionSeq('s1'), 2, 'no event appended, no seq used');
  await store.close();
});

test('the session and interaction lists come with the host log’s seq they were read at', async () => {
  const store = SqliteHostStore.open({ path: ':memory:' });
  assert.deepEqual(await store.loadSessionList({ includeClosed: false }), { sessions: [], lastHostSeq: 0 });
  const session = testSession('s1');
  // The store takes host events as given (the projection builds them): any one moves the host log's seq.
  await store.commit({
    sessions: [session],
    turns: [testTurn('s1', 't1', 0)],
    hostEvents: [
      {
        type: 'permission_resolved',
        data: { session_id: 's1', turnId: 't0', requestId: 'r0', status: 'answered', resolution: 'answered' },
      },
    ],
  });
  const interaction = testInteraction('s1', 'r1');
  await store.commit({
    interactions: [interaction],
    hostEvents: [{ type: 'permission_request', data: { session_id: 's1', interaction } }],
  });
  assert.deepEqual(await store.loadSessionList({ includeClosed: false }), { sessions: [session], lastHostSeq: 2 });
  assert.deepEqual(await store.loadInteractionList({ status: 'pending' }), {
    interactions: [interaction],
    lastHostSeq: 2,
  });
  const answered = { ...interaction, status: 'answered' as const, resolution: 'answered' as const, resolvedAt: 9 };
  await store.commit({
    interactions: [answered],
    hostEvents: [
      {
        type: 'permission_resolved',
        data: { session_id: 's1', turnId: 't1', requestId: 'r1', status: 'answered', resolution: 'answered' },
      },
    ],
  });
  assert.deepEqual(await store.loadInteractionList({ sessionId: 's1', status: 'pending' }), {
    interactions: [],
    lastHostSeq: 3,
  });
  assert.deepEqual(await store.loadInteractionList({ sessionId: 's2' }), { interactions: [], lastHostSeq: 3 });
  await store.close();
});

test('migration 2 gives a running session of a version-1 database the start of its running turn', async () => {
  const path = tempDbPath();
  const db = new DatabaseSync(path);
  migrate(db, { target: 1 });
  db.exec(`
    INSERT INTO sessions (id, title, title_source, cwd, closed, status, needs_input_count, running_turn_id,
      settings, config_options, provider_session_id, usage, background_tasks, created_at, updated_at, last_activity_at)
    VALUES ('s1', 't', 'default', '/tmp', 0, 'running', 0, 't1', '{}', '[]', 'p', '{}', '[]', 1, 1, 1),
           ('s2', 't', 'default', '/tmp', 0, 'idle', 0, NULL, '{}', '[]', 'p', '{}', '[]', 1, 1, 1);
    INSERT INTO turns (session_id, id, ordinal, kind, status, input, created_at, started_at)
    VALUES ('s1', 't1', 0, 'user', 'running', '[]', 10, 1234),
           ('s2', 't1', 0, 'user', 'completed', '[]', 10, 99);
  `);
  assert.deepEqual(migrate(db, { target: 2 }), [2]);
  assert.deepEqual(
    db
      .prepare('SELECT id, running_turn_started_at AS startedAt FROM sessions ORDER BY id')
      .all()
      .map((row) => ({ ...row })),
    [
      { id: 's1', startedAt: 1234 },
      { id: 's2', startedAt: null },
    ],
  );
  db.close();
});

test('migration 3: a session of a version-2 database has no worktree; a worktree is stored with its session', async () => {
  const path = tempDbPath();
  const db = new DatabaseSync(path);
  migrate(db, { target: 2 });
  db.exec(`
    INSERT INTO sessions (id, title, title_source, cwd, closed, status, needs_input_count, running_turn_id,
      settings, config_options, provider_session_id, usage, background_tasks, created_at, updated_at, last_activity_at)
    VALUES ('old', 't', 'default', '/tmp', 0, 'idle', 0, NULL, '{}', '[]', 'p', '{}', '[]', 1, 1, 1);
  `);
  assert.deepEqual(migrate(db, { target: 3 }), [3]);
  db.close();
  const store = SqliteHostStore.open({ path });
  try {
    assert.equal((await store.getSession('old'))?.worktree, null);
    const worktree = {
      repoRoot: '/r',
      path: '/d/worktrees/x',
      branch: 'outrigger/x',
      baseBranch: 'main',
      baseCommit: 'a'.repeat(40),
      state: 'active' as const,
      mergedCommit: null,
    };
    await store.commit({ sessions: [{ ...testSession('new'), worktree }] });
    assert.deepEqual((await store.getSession('new'))?.worktree, worktree);
  } finally {
    await store.close();
  }
});

test('migration 4: queued turns of a version-3 database are not paused; paused and an edited prompt are stored', async () => {
  const path = tempDbPath();
  const db = new DatabaseSync(path);
  migrate(db, { target: 3 });
  db.exec(`
    INSERT INTO sessions (id, title, title_source, cwd, closed, status, needs_input_count, running_turn_id,
      settings, config_options, provider_session_id, usage, background_tasks, created_at, updated_at, last_activity_at)
    VALUES ('old', 't', 'default', '/tmp', 0, 'idle', 0, NULL, '{}', '[]', 'p', '{}', '[]', 1, 1, 1);
    INSERT INTO turns (session_id, id, ordinal, kind, status, prompt, input, created_at)
    VALUES ('old', 'q1', 0, 'user', 'queued', 'before', '[]', 10);
  `);
  assert.deepEqual(migrate(db, { target: 4 }), [4]);
  db.close();
  const store = SqliteHostStore.open({ path });
  try {
    assert.equal((await store.getSession('old'))?.queuePaused, false);
    const old = await store.getTurn('old', 'q1');
    assert.equal(old?.paused, false);
    await store.commit({
      sessions: [{ ...(await store.getSession('old'))!, queuePaused: true }],
      turns: [{ ...old!, paused: true, prompt: 'after' }],
    });
    const stored = await store.getTurn('old', 'q1');
    assert.deepEqual([stored?.paused, stored?.prompt], [true, 'after'], 'a queued prompt can be paused and edited');
    assert.equal((await store.getSession('old'))?.queuePaused, true);
  } finally {
    await store.close();
  }
});

test('what was committed survives close and reopen, and seqs continue', async () => {
  const path = tempDbPath();
  const store = await storeWithSession(path);
  await store.commit({
    messages: [testTextMessage('s1', 't1', 0, 'kept')],
    sessionEvents: [textEvent('s1', 't1', 'a'), textEvent('s1', 't1', 'b')],
    hostEvents: [
      {
        type: 'permission_resolved',
        data: { session_id: 's1', turnId: 't1', requestId: 'r', status: 'answered', resolution: 'answered' },
      },
    ],
  });
  await store.close();
  await assert.rejects(store.getSession('s1'), /closed/);
  await assert.rejects(store.commit({}), /closed/);

  const reopened = SqliteHostStore.open({ path });
  assert.equal((await reopened.getMessage('s1', 'm-0'))?.content[0]?.type, 'text');
  assert.equal(await reopened.lastSessionSeq('s1'), 2);
  assert.equal(await reopened.lastHostSeq(), 1);
  const { sessionEvents, hostEvents } = await reopened.commit({
    sessionEvents: [textEvent('s1', 't1', 'c')],
    hostEvents: [
      {
        type: 'permission_resolved',
        data: { session_id: 's1', turnId: 't1', requestId: 'r2', status: 'answered', resolution: 'answered' },
      },
    ],
  });
  assert.equal(sessionEvents[0]!.data.seq, 3);
  assert.equal(hostEvents[0]!.data.seq, 2);
  await reopened.close();
});

test('message pages go newest first by position, oldest first inside a page', async () => {
  const store = await storeWithSession();
  await store.commit({
    messages: Array.from({ length: 7 }, (_, i) => testTextMessage('s1', 't1', i, `m${i}`)),
  });
  const newest = await store.listMessages('s1', { limit: 3 });
  assert.deepEqual(
    newest.messages.map((m) => m.position),
    [4, 5, 6],
  );
  assert.equal(newest.hasMore, true);
  const older = await store.listMessages('s1', { before: 4, limit: 3 });
  assert.deepEqual(
    older.messages.map((m) => m.position),
    [1, 2, 3],
  );
  const oldest = await store.listMessages('s1', { before: 1, limit: 3 });
  assert.deepEqual(
    oldest.messages.map((m) => m.position),
    [0],
  );
  assert.equal(oldest.hasMore, false);
  await store.close();
});

test('snapshot and projector-state reads see live turns, pending interactions and counters', async () => {
  const store = SqliteHostStore.open({ path: ':memory:' });
  await store.commit({
    sessions: [
      testSession('s1', {
        backgroundTasks: [
          {
            tool_use_id: 'agent-1',
            turnId: 't0',
            kind: 'agent',
            taskId: null,
            description: null,
            status: 'running',
            startedAt: 1,
          },
        ],
      }),
    ],
    turns: [
      testTurn('s1', 't0', 0, { status: 'completed' }),
      testTurn('s1', 't1', 1, { status: 'failed' }),
      testTurn('s1', 't2', 2, { status: 'completed' }),
      testTurn('s1', 't3', 3, { status: 'running' }),
      testTurn('s1', 't4', 4, { status: 'queued', startedAt: null }),
    ],
    messages: [
      testTextMessage('s1', 't0', 0, 'a'),
      testTextMessage('s1', 't1', 1, 'b'),
      testTextMessage('s1', 't2', 2, 'c'),
      testTextMessage('s1', 't3', 3, 'd', { status: 'streaming' }),
    ],
    interactions: [
      testInteraction('s1', 'r1', {
        turnId: 't3',
        kind: 'question',
        toolName: 'AskUserQuestion',
        tool_use_id: 'q',
        input: {},
        options: [],
        createdAt: 1,
      }),
    ],
    sessionEvents: [statusEvent('s1')],
  });
  const state = await store.loadProjectionState('s1');
  assert.ok(state);
  assert.deepEqual(
    state.turns.map((turn) => turn.id),
    ['t0', 't2', 't3', 't4'],
    'live turns, the one owning background work, and the latest terminal one',
  );
  assert.deepEqual(
    state.messages.map((m) => m.position),
    [0, 2, 3],
  );
  assert.equal(state.pendingInteractions.length, 1);
  assert.equal(state.lastSeq, 1);
  assert.equal(state.nextPosition, 4);
  assert.equal(state.nextTurnOrdinal, 5);
  assert.equal(state.hasAcceptedTurn, false);
  assert.deepEqual(
    (await store.listTurnMessages('s1', 't3')).map((m) => m.position),
    [3],
  );
  await store.commit({ turns: [testTurn('s1', 't1', 1, { status: 'failed', providerTurnId: 'p1' })] });
  assert.equal((await store.loadProjectionState('s1'))?.hasAcceptedTurn, true);

  const snapshot = await store.loadSessionSnapshot('s1', 2);
  assert.ok(snapshot);
  assert.deepEqual(
    snapshot.liveTurns.map((turn) => turn.id),
    ['t3', 't4'],
  );
  assert.deepEqual(
    snapshot.page.messages.map((m) => m.position),
    [2, 3],
  );
  assert.deepEqual(
    snapshot.pageTurns.map((turn) => turn.id),
    ['t2', 't3'],
  );
  assert.equal(snapshot.lastSeq, 1);
  assert.equal(await store.loadSessionSnapshot('nobody', 10), undefined);
  assert.equal(await store.loadProjectionState('nobody'), undefined);

  const empty = SqliteHostStore.open({ path: ':memory:' });
  await empty.commit({ sessions: [testSession('e')] });
  const fresh = await empty.loadProjectionState('e');
  assert.equal(fresh?.nextPosition, 0);
  assert.equal(fresh?.nextTurnOrdinal, 0);
  await empty.close();
  await store.close();
});

test('a transcript copy takes the turns up to the fork turn and their messages', async () => {
  const store = SqliteHostStore.open({ path: ':memory:' });
  await store.commit({
    sessions: [testSession('src')],
    turns: [
      testTurn('src', 't0', 0, { status: 'completed' }),
      testTurn('src', 't1', 1, { status: 'completed' }),
      testTurn('src', 't2', 2, { status: 'completed' }),
    ],
    messages: [
      testTextMessage('src', 't0', 0, 'a'),
      testTextMessage('src', 't1', 1, 'b'),
      testTextMessage('src', 't2', 2, 'c'),
      testTextMessage('src', 't1', 3, 'late subagent row of t1'),
    ],
  });
  await store.commit({
    sessions: [testSession('fork', { forkedFrom: { sessionId: 'src', turnId: 't1' } })],
    copyTranscript: { fromSessionId: 'src', toSessionId: 'fork', throughTurnId: 't1' },
    // The unit's own turns land after the copy: the child's provider bindings replace the source's.
    turns: [testTurn('fork', 't1', 1, { status: 'completed', providerTurnId: 'child-p1' })],
  });
  assert.deepEqual(
    (await store.listTurns('fork')).map((turn) => [turn.id, turn.providerTurnId]),
    [
      ['t0', null],
      ['t1', 'child-p1'],
    ],
  );
  assert.deepEqual(
    (await store.listMessages('fork', { limit: 10 })).messages.map((m) => [m.sessionId, m.position]),
    [
      ['fork', 0],
      ['fork', 1],
      ['fork', 3],
    ],
  );
  await assert.rejects(
    store.commit({
      sessions: [testSession('fork2')],
      copyTranscript: { fromSessionId: 'src', toSessionId: 'fork2', throughTurnId: 'nope' },
    }),
    /fork turn does not exist/,
  );
  assert.equal(await store.getSession('fork2'), undefined, 'the failed fork left no session behind');
  await store.close();
});

test('uniqueness holds: one row per tool_use_id, per clientMessageId, per position', async () => {
  const store = await storeWithSession();
  await store.commit({ messages: [testToolMessage('s1', 't1', 0, 'tu')] });
  await assert.rejects(
    store.commit({ messages: [{ ...testToolMessage('s1', 't1', 1, 'tu'), id: 'other' }] }),
    /UNIQUE/,
  );
  await assert.rejects(store.commit({ turns: [testTurn('s1', 't9', 0)] }), /UNIQUE/, 'ordinal is unique');
  await store.commit({ turns: [testTurn('s1', 't2', 1, { clientMessageId: 'c' })] });
  await assert.rejects(store.commit({ turns: [testTurn('s1', 't3', 2, { clientMessageId: 'c' })] }), /UNIQUE/);
  await store.close();
});

test('a commit survives the SIGKILL of the process that made it', async () => {
  const path = tempDbPath();
  const storeModule = new URL('./sqliteHostStore.ts', import.meta.url).href;
  const recordsModule = new URL('../testRecords.ts', import.meta.url).href;
  // The child commits, reports, and waits to be killed: nothing runs after the commit but the kill.
  const script = `
    import { SqliteHostStore } from ${JSON.stringify(storeModule)};
    import { testSession } from ${JSON.stringify(recordsModule)};
    const store = SqliteHostStore.open({ path: ${JSON.stringify(path)} });
    await store.commit({ sessions: [testSession('s1')] });
    for (let i = 0; i < 20; i += 1) {
      await store.commit({ sessionEvents: [{ type: 'title', data: { session_id: 's1', title: 't' + i } }] });
    }
    process.stdout.write('committed\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('committed')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the child exited early (${code})`)));
    });
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit').catch(() => undefined);
  }
  const reopened = SqliteHostStore.open({ path });
  assert.equal(await reopened.lastSessionSeq('s1'), 20);
  const events = await reopened.readSessionEvents('s1', 0, 100);
  assert.deepEqual(
    events.map((event) => (event.type === 'title' ? event.data.title : '')),
    Array.from({ length: 20 }, (_, i) => `t${i}`),
  );
  await reopened.close();
});
