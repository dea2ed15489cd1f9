import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SdkTodo } from '@outrigger/host-api';
import type { TaskRecord } from '../store/records.ts';
import { SqliteHostStore } from '../store/sqlite/sqliteHostStore.ts';
import { StoreError } from '../store/storeError.ts';
import { testSession, testTurn, testUserTask } from '../store/testRecords.ts';
import { changeUserTask, planOfTurns, syncSdkTasks, taskUnit } from './taskProjection.ts';

/*
 * The rules run against a real store: each change is built from the rows the store holds and its unit
 * committed, so the event a rule builds is checked against what the store then reads back.
 */

async function storeWithSession() {
  const store = SqliteHostStore.open({ path: ':memory:' });
  await store.commit({ sessions: [testSession('s1')], turns: [testTurn('s1', 't1', 0)] });
  return store;
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

/** A plan's sync as the ledger runs it: the session's rows, the rule, one commit. */
async function sync(store: SqliteHostStore, sessionId: string, turnId: string, todos: SdkTodo[], now: number) {
  const change = syncSdkTasks(sessionId, await store.listTasks(sessionId), { turnId, todos, now });
  return { tasks: change.tasks, commit: await store.commit(taskUnit(change)) };
}

/** A user task change as the ledger runs it. */
async function changeTask(
  store: SqliteHostStore,
  sessionId: string,
  change: { put: TaskRecord } | { deleteId: string },
) {
  return store.commit(taskUnit(changeUserTask(sessionId, await store.listTasks(sessionId), change)));
}

test('syncSdkTasks follows seed 002 and is idempotent; user tasks are untouched', async () => {
  const store = await storeWithSession();
  const userTask = {
    id: 'u1',
    session_id: 's1',
    title: 'my own',
    status: 'in_progress' as const,
    description: 'keep me',
    sort_order: 0,
    source: 'user' as const,
    created_at: 5,
    updated_at: 5,
  };
  await store.commit({ tasks: [userTask] });
  const todos = [
    { content: 'Read the code', status: 'completed', activeForm: 'Reading the code' },
    { content: 'Write the test', status: 'in_progress', activeForm: 'Writing the test' },
    { content: 'Ship', status: 'blocked' },
  ];
  const first = await sync(store, 's1', 't1', todos, 100);
  assert.deepEqual(
    first.tasks.map((task) => [task.id, task.title, task.status, task.description, task.sort_order, task.source]),
    [
      ['sdk-s1-0', 'Read the code', 'completed', 'Reading the code', 0, 'sdk'],
      ['sdk-s1-1', 'Write the test', 'in_progress', 'Writing the test', 1, 'sdk'],
      ['sdk-s1-2', 'Ship', 'pending', null, 2, 'sdk'],
      ['u1', 'my own', 'in_progress', 'keep me', 0, 'user'],
    ],
    'SDK rows first in plan order, unknown status → pending, the user row after them',
  );
  const event = first.commit.sessionEvents[0]!;
  assert.equal(event.type, 'task_update');
  assert.deepEqual(event.data, { session_id: 's1', seq: 1, turnId: 't1', todos, tasks: first.tasks });
  assert.deepEqual(await store.readSessionEvents('s1', 0, 10), [event], 'the task_update is in the log');

  const second = await sync(store, 's1', 't1', todos, 200);
  assert.deepEqual(second.tasks, first.tasks, 'the same todos twice give the same rows, timestamps included');
  assert.deepEqual(await store.listTasks('s1'), first.tasks);

  const shorter = await sync(store, 's1', 't1', [{ content: 'Ship', status: 'completed' }], 300);
  assert.deepEqual(
    shorter.tasks.map((task) => [task.id, task.title, task.status, task.created_at, task.updated_at]),
    [
      ['sdk-s1-0', 'Ship', 'completed', 100, 300],
      ['u1', 'my own', 'in_progress', 5, 5],
    ],
  );
  const cleared = await sync(store, 's1', 't1', [], 400);
  assert.deepEqual(cleared.tasks, [userTask]);
  assert.deepEqual(await store.getTask('u1'), userTask, 'the user task never changed');
  await store.close();
});

test('a failed task sync changes nothing', async () => {
  const { store, failing } = storeFailingOnDemand('injected');
  await store.commit({ sessions: [testSession('s1')] });
  await sync(store, 's1', 't1', [{ content: 'a', status: 'pending' }], 1);
  failing(true);
  await assert.rejects(sync(store, 's1', 't1', [{ content: 'b', status: 'pending' }], 2), StoreError);
  assert.deepEqual(
    (await store.listTasks('s1')).map((task) => task.title),
    ['a'],
  );
  assert.equal(await store.lastSessionSeq('s1'), 1);
  await store.close();
});

test('a user task change appends tasks_changed with the session’s tasks, in the same transaction', async () => {
  const { store, failing } = storeFailingOnDemand('injected');
  await store.commit({ sessions: [testSession('s1'), testSession('s2')] });
  await sync(store, 's1', 't1', [{ content: 'plan', status: 'in_progress' }], 1);
  const mine = testUserTask('s1', 'u1');
  await changeTask(store, 's2', { put: { ...mine, id: 'other', session_id: 's2' } });
  const added = await changeTask(store, 's1', { put: mine });
  assert.deepEqual(
    added.sessionEvents.map((event) => [event.type, event.data.seq]),
    [['tasks_changed', 2]],
  );
  const event = added.sessionEvents[0]!;
  assert.ok(event.type === 'tasks_changed');
  assert.deepEqual(
    event.data.tasks.map((task) => task.id),
    ['sdk-s1-0', 'u1'],
    'the session’s tasks after the change, SDK plan first, no other session’s',
  );
  assert.deepEqual(await store.readSessionEvents('s1', 1, 10), [event]);

  const removed = await changeTask(store, 's1', { deleteId: 'u1' });
  const after = removed.sessionEvents[0]!;
  assert.ok(after.type === 'tasks_changed');
  assert.deepEqual(
    after.data.tasks.map((task) => task.id),
    ['sdk-s1-0'],
    'the tasks after the delete',
  );
  assert.deepEqual(after.data.tasks, await store.listTasks('s1'), 'the event carries what the store then holds');

  failing(true);
  await assert.rejects(changeTask(store, 's1', { put: { ...mine, id: 'u2' } }), StoreError);
  assert.equal(await store.getTask('u2'), undefined);
  assert.equal(await store.lastSessionSeq('s1'), 3, 'a refused change appends no event');
  await store.close();
});

test('syncSdkTasks writes only what changed: rows of a new or changed todo, the ids of todos gone', () => {
  const plan = (todos: SdkTodo[], now: number) => ({ turnId: 't1', todos, now });
  const user = testUserTask('s1', 'u1', { sort_order: 3 });
  const first = syncSdkTasks(
    's1',
    [user],
    plan(
      [
        { content: 'a', status: 'pending' },
        { content: 'b', status: 'pending' },
      ],
      10,
    ),
  );
  assert.deepEqual(
    first.put.map((task) => task.id),
    ['sdk-s1-0', 'sdk-s1-1'],
  );
  assert.deepEqual(first.deleteIds, []);
  assert.deepEqual(
    first.tasks.map((task) => task.id),
    ['sdk-s1-0', 'sdk-s1-1', 'u1'],
  );

  const edited = syncSdkTasks(
    's1',
    first.tasks,
    plan(
      [
        { content: 'a', status: 'pending' },
        { content: 'b', status: 'completed' },
      ],
      20,
    ),
  );
  assert.deepEqual(
    edited.put.map((task) => [task.id, task.status, task.created_at, task.updated_at]),
    [['sdk-s1-1', 'completed', 10, 20]],
    'a changed todo keeps its created_at and takes the new updated_at; an unchanged one is not written',
  );

  const again = syncSdkTasks(
    's1',
    first.tasks,
    plan(
      [
        { content: 'a', status: 'pending' },
        { content: 'b', status: 'pending' },
      ],
      30,
    ),
  );
  assert.deepEqual(again.put, [], 'the same todos again write no row');
  assert.deepEqual(again.tasks, first.tasks);

  const shorter = syncSdkTasks('s1', first.tasks, plan([{ content: 'a', status: 'pending' }], 40));
  assert.deepEqual(shorter.put, []);
  assert.deepEqual(shorter.deleteIds, ['sdk-s1-1'], 'a todo gone is deleted; the user task is never named');
});

test('planOfTurns: the plan the last of the given turns left, read from the log (a later turn’s plan is not it)', () => {
  const plan = (turnId: string, ...statuses: string[]) => ({
    type: 'task_update',
    data: {
      session_id: 's1',
      turnId,
      todos: statuses.map((status, index) => ({ content: `step ${index}`, status })),
      tasks: [],
    },
  });
  const log = [
    plan('t1', 'in_progress', 'pending'),
    { type: 'text', data: { turnId: 't1' } },
    plan('t1', 'completed', 'in_progress'),
    { type: 'tasks_changed', data: { session_id: 's1', tasks: [] } },
    plan('t2', 'completed', 'completed', 'pending'),
  ];
  assert.deepEqual(planOfTurns(log, new Set(['t1'])), {
    turnId: 't1',
    todos: [
      { content: 'step 0', status: 'completed' },
      { content: 'step 1', status: 'in_progress' },
    ],
  });
  assert.equal(planOfTurns(log, new Set(['t2']))?.todos.length, 3);
  assert.equal(planOfTurns(log, new Set(['t0'])), undefined, 'no plan in those turns');
  assert.equal(planOfTurns([], new Set(['t1'])), undefined);
});
