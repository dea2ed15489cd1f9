import assert from 'node:assert/strict';
import { DatabaseSync, type SQLOutputValue } from 'node:sqlite';
import { test } from 'node:test';
import { testSession, testTextMessage } from '../testRecords.ts';
import { migrate } from './migrations.ts';
import {
  attachmentMapping,
  interactionMapping,
  messageMapping,
  sessionMapping,
  type TableMapping,
  taskMapping,
  turnMapping,
} from './rowMapping.ts';

const mappings: readonly TableMapping<unknown>[] = [
  sessionMapping,
  turnMapping,
  messageMapping,
  interactionMapping,
  taskMapping,
  attachmentMapping,
];

test('each mapping names exactly the columns the migrations create, and its key is the table’s conflict target', () => {
  const db = new DatabaseSync(':memory:');
  migrate(db);
  for (const mapping of mappings) {
    const schema = db.prepare(`PRAGMA table_info(${mapping.table})`).all();
    assert.deepEqual(
      [...mapping.columns].sort(),
      schema.map((column) => column.name as string).sort(),
      `${mapping.table}: columns`,
    );
    assert.ok(
      mapping.updatable.every((column) => mapping.columns.includes(column) && !mapping.key.includes(column)),
      `${mapping.table}: a put changes only its own non-key columns`,
    );
    const uniqueIndexes = db
      .prepare(`PRAGMA index_list(${mapping.table})`)
      .all()
      .filter((index) => index.unique === 1)
      .map((index) =>
        db
          .prepare(`PRAGMA index_info(${JSON.stringify(index.name)})`)
          .all()
          .map((column) => column.name as string),
      );
    const primaryKey = schema
      .filter((column) => (column.pk as number) > 0)
      .sort((a, b) => (a.pk as number) - (b.pk as number))
      .map((column) => column.name as string);
    assert.ok(
      [primaryKey, ...uniqueIndexes].some((columns) => columns.join() === mapping.key.join()),
      `${mapping.table}: key ${mapping.key.join()} is unique`,
    );
  }
  db.close();
});

/** The row SQLite would give back for what a put binds. */
function rowOf<R>(mapping: TableMapping<R>, record: R): Record<string, SQLOutputValue> {
  const values = mapping.values(record);
  assert.equal(values.length, mapping.columns.length, `${mapping.table}: one value a column`);
  return Object.fromEntries(mapping.columns.map((column, index) => [column, values[index] as SQLOutputValue]));
}

test('a record’s values follow the column order; a read gives the same record back, fields in order', () => {
  const session = testSession('s1', { forkedFrom: { sessionId: 's0', turnId: 't0' }, closed: true });
  const row = rowOf(sessionMapping, session);
  assert.equal(row.closed, 1);
  assert.equal(row.forked_from_session_id, 's0');
  assert.equal(row.forked_from_turn_id, 't0');
  assert.equal(row.settings, JSON.stringify(session.settings));
  assert.deepEqual(sessionMapping.fromRow(row), session);
  const unforked = rowOf(sessionMapping, testSession('s2'));
  assert.deepEqual([unforked.forked_from_session_id, unforked.forked_from_turn_id], [null, null]);
  assert.equal(sessionMapping.fromRow(unforked).forkedFrom, null);

  const message = testTextMessage('s1', 't1', 0, 'hello');
  const read = messageMapping.fromRow(rowOf(messageMapping, message));
  assert.deepEqual(read, message);
  assert.deepEqual(Object.keys(read), Object.keys(message));
});
