import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { compareTasks, type Task } from './tasks.ts';

const task = (id: string, overrides: Partial<Task> = {}): Task => ({
  id,
  session_id: 's1',
  title: id,
  status: 'pending',
  description: null,
  sort_order: 0,
  source: 'user',
  created_at: 1,
  updated_at: 1,
  ...overrides,
});

test('compareTasks: the SDK plan first by sort_order, then user tasks by sort_order, created_at, id', () => {
  const tasks = [
    task('u-b', { sort_order: 1, created_at: 5 }),
    task('u-a', { sort_order: 1, created_at: 5 }),
    task('u-late', { sort_order: 0, created_at: 9 }),
    task('u-early', { sort_order: 0, created_at: 2 }),
    task('sdk-s1-1', { source: 'sdk', sort_order: 1, created_at: 1 }),
    task('sdk-s1-0', { source: 'sdk', sort_order: 0, created_at: 8 }),
    task('other', { session_id: 's0', sort_order: 7 }),
  ];
  assert.deepEqual(
    [...tasks].sort(compareTasks).map((row) => row.id),
    ['other', 'sdk-s1-0', 'sdk-s1-1', 'u-early', 'u-late', 'u-a', 'u-b'],
  );
});

test('compareTasks orders as the store’s SQL does, ties included', () => {
  // The ORDER BY of SqliteHostStore's task reads, over rows with many ties on every key.
  const db = new DatabaseSync(':memory:');
  db.exec(
    `CREATE TABLE tasks (id TEXT PRIMARY KEY, session_id TEXT, source TEXT, sort_order INTEGER, created_at INTEGER)`,
  );
  const insert = db.prepare('INSERT INTO tasks VALUES (?, ?, ?, ?, ?)');
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const tasks: Task[] = [];
  for (let i = 0; i < 200; i += 1) {
    const row = task(`${next(2) === 0 ? 'task' : 'sdk'}-${next(50)}-${i}`, {
      session_id: `s${next(3)}`,
      source: next(2) === 0 ? 'sdk' : 'user',
      sort_order: next(4),
      created_at: next(3),
    });
    tasks.push(row);
    insert.run(row.id, row.session_id, row.source, row.sort_order, row.created_at);
  }
  const sql = db
    .prepare(
      `SELECT id FROM tasks ORDER BY session_id, CASE source WHEN 'sdk' THEN 0 ELSE 1 END, sort_order, created_at, id`,
    )
    .all()
    .map((row) => row.id);
  db.close();
  assert.deepEqual(
    [...tasks].sort(compareTasks).map((row) => row.id),
    sql,
  );
});
