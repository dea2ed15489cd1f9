import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { testSession } from '../testRecords.ts';
import { migrate } from './migrations.ts';
import { SqliteHostStore } from './sqliteHostStore.ts';

const dir = mkdtempSync(join(tmpdir(), 'outrigger-migration-9-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('migration 9: an older session continues nothing; a continued one is stored and found by its Claude session', async () => {
  const path = join(dir, 'host.db');
  const db = new DatabaseSync(path);
  migrate(db, { target: 8 });
  db.exec(`
    INSERT INTO sessions (id, title, title_source, cwd, closed, status, needs_input_count, running_turn_id,
      settings, config_options, provider_session_id, usage, background_tasks, created_at, updated_at, last_activity_at)
    VALUES ('old', 't', 'default', '/tmp', 0, 'idle', 0, NULL, '{}', '[]', 'claude-old', '{}', '[]', 1, 1, 1);
  `);
  assert.deepEqual(migrate(db, { target: 9 }), [9]);
  db.close();
  const store = SqliteHostStore.open({ path });
  try {
    assert.equal((await store.getSession('old'))?.continuedFrom, null);
    assert.equal((await store.findSessionByProviderSession('claude-old'))?.id, 'old');
    const continuedFrom = { claudeSessionId: 'claude-new', mode: 'resume' as const, rows: 12 };
    await store.commit({
      sessions: [
        { ...testSession('second', { providerSessionId: 'claude-new', createdAt: 5 }), continuedFrom },
        { ...testSession('first', { providerSessionId: 'claude-new', createdAt: 2, closed: true }), continuedFrom },
      ],
    });
    assert.deepEqual((await store.getSession('first'))?.continuedFrom, continuedFrom);
    assert.equal((await store.findSessionByProviderSession('claude-new'))?.id, 'first', 'the oldest, closed too');
    assert.equal(await store.findSessionByProviderSession('claude-none'), undefined);
    // A later put never changes what a session continues.
    await store.commit({
      sessions: [{ ...testSession('first', { providerSessionId: 'claude-new' }), continuedFrom: null }],
    });
    assert.deepEqual((await store.getSession('first'))?.continuedFrom, continuedFrom);
  } finally {
    await store.close();
  }
});
