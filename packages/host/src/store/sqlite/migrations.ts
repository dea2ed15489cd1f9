import type { DatabaseSync } from 'node:sqlite';
import { StoreError } from '../storeError.ts';

/**
 * The schema, one migration per version, each applied in its own transaction and recorded in
 * `schema_version`. Never edit a released migration: add the next one. A database newer than this
 * code is refused (an older host must not write a schema it does not know).
 */
export const migrations: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        title_source TEXT NOT NULL CHECK (title_source IN ('default', 'agent', 'user')),
        cwd TEXT NOT NULL,
        closed INTEGER NOT NULL CHECK (closed IN (0, 1)),
        status TEXT NOT NULL,
        needs_input_count INTEGER NOT NULL,
        running_turn_id TEXT,
        last_error TEXT,
        settings TEXT NOT NULL,
        effective_model TEXT,
        config_options TEXT NOT NULL,
        provider_session_id TEXT NOT NULL,
        resume_cursor TEXT,
        usage TEXT NOT NULL,
        background_tasks TEXT NOT NULL,
        forked_from_session_id TEXT,
        forked_from_turn_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        last_activity_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);

      CREATE TABLE turns (
        session_id TEXT NOT NULL REFERENCES sessions (id),
        id TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('user', 'synthetic')),
        status TEXT NOT NULL,
        prompt TEXT,
        input TEXT NOT NULL,
        client_message_id TEXT,
        provider_turn_id TEXT,
        provider_session_id TEXT,
        checkpoint_message_id TEXT,
        stop_reason TEXT,
        error TEXT,
        cancel_disposition TEXT,
        usage TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        ended_at INTEGER,
        PRIMARY KEY (session_id, id),
        UNIQUE (session_id, ordinal),
        UNIQUE (session_id, client_message_id)
      );
      CREATE INDEX turns_by_status ON turns (session_id, status, ordinal);

      CREATE TABLE attachments (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id),
        turn_id TEXT,
        media_type TEXT NOT NULL,
        bytes BLOB NOT NULL,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE messages (
        session_id TEXT NOT NULL,
        id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
        status TEXT NOT NULL,
        content TEXT NOT NULL,
        notice_kind TEXT,
        steer INTEGER NOT NULL CHECK (steer IN (0, 1)),
        client_message_id TEXT,
        tool_use_id TEXT,
        source_message_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, id),
        FOREIGN KEY (session_id, turn_id) REFERENCES turns (session_id, id),
        UNIQUE (session_id, position),
        UNIQUE (session_id, tool_use_id),
        UNIQUE (session_id, client_message_id)
      );
      CREATE INDEX messages_by_turn ON messages (session_id, turn_id, position);

      CREATE TABLE interactions (
        session_id TEXT NOT NULL REFERENCES sessions (id),
        request_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        tool_use_id TEXT NOT NULL,
        input TEXT NOT NULL,
        options TEXT NOT NULL,
        agent_id TEXT,
        parent_tool_use_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'superseded')),
        answer TEXT,
        resolution TEXT,
        created_at INTEGER NOT NULL,
        resolved_at INTEGER,
        PRIMARY KEY (session_id, request_id)
      );
      CREATE INDEX interactions_by_status ON interactions (status, created_at);

      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id),
        title TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
        description TEXT,
        sort_order INTEGER NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('user', 'sdk')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX tasks_by_session ON tasks (session_id, source, sort_order);

      CREATE TABLE session_events (
        session_id TEXT NOT NULL REFERENCES sessions (id),
        seq INTEGER NOT NULL CHECK (seq > 0),
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)
      );

      CREATE TABLE host_events (
        seq INTEGER PRIMARY KEY CHECK (seq > 0),
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    // SessionSummary.runningTurnStartedAt: stored with running_turn_id; a running turn of an older
    // database takes its start from its turn row.
    version: 2,
    sql: `
      ALTER TABLE sessions ADD COLUMN running_turn_started_at INTEGER;
      UPDATE sessions SET running_turn_started_at =
        (SELECT started_at FROM turns WHERE turns.session_id = sessions.id AND turns.id = sessions.running_turn_id)
      WHERE running_turn_id IS NOT NULL;
    `,
  },
  {
    // SessionDetail.worktree: the session's own git worktree (JSON), NULL for a session in the user's directory.
    version: 3,
    sql: `ALTER TABLE sessions ADD COLUMN worktree TEXT;`,
  },
  {
    // TurnRecord.paused: a queued prompt the user's Stop paused; it waits until it is run, resumed or removed.
    // SessionSummary.queuePaused: some queued prompt is paused (stored with the status, as computed from the turns).
    version: 4,
    sql: `
      ALTER TABLE turns ADD COLUMN paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1));
      ALTER TABLE sessions ADD COLUMN queue_paused INTEGER NOT NULL DEFAULT 0 CHECK (queue_paused IN (0, 1));
    `,
  },
  {
    // SessionSummary.archivedAt: an archived session is hidden from the default list, restorable; NULL when it is not.
    version: 5,
    sql: `ALTER TABLE sessions ADD COLUMN archived_at INTEGER;`,
  },
  {
    // SessionRecord.slashCommands: what Claude Code reported for the session (GET /api/sessions/:id/commands).
    version: 6,
    sql: `ALTER TABLE sessions ADD COLUMN slash_commands TEXT NOT NULL DEFAULT '[]';`,
  },
  {
    // ToolUseBlock.outcome / decision / elapsedSeconds, stored in the tool row's content: how each call
    // ended and what the person decided, from its result, its turn and its resolved interaction (the
    // questions' answers stay in `decision.answer`; `decision.questions` is left empty for these rows).
    version: 7,
    sql: `
      WITH decided AS (
        SELECT i.*,
          (json_extract(i.answer, '$.action') IN ('reject', 'reject_once', 'deny', 'decline', 'cancel')
            OR json_extract(i.answer, '$.optionId') IN ('reject', 'reject_once', 'deny', 'decline', 'cancel')) AS refused
        FROM interactions i WHERE i.status <> 'pending'
      )
      UPDATE messages SET content = json_set(content,
        '$[0].outcome', CASE
          WHEN json_extract(content, '$[0].status') = 'running' THEN NULL
          WHEN json_extract(content, '$[0].status') = 'completed'
            AND coalesce(json_extract(content, '$[1].is_error'), 0) = 0 THEN 'completed'
          WHEN EXISTS (SELECT 1 FROM decided d WHERE d.session_id = messages.session_id
            AND d.tool_use_id = messages.tool_use_id AND d.status = 'answered' AND d.refused) THEN 'denied'
          WHEN (SELECT t.status FROM turns t WHERE t.session_id = messages.session_id AND t.id = messages.turn_id)
            = 'canceled' THEN 'canceled'
          WHEN json_extract(content, '$[1].content') LIKE 'The user doesn''t want to proceed with this tool use%'
            THEN 'canceled'
          WHEN json_extract(content, '$[1].resultSource') = 'synthesized' THEN 'stopped'
          ELSE 'failed' END,
        '$[0].decision', json((SELECT json_object(
            'requestId', d.request_id,
            'kind', d.kind,
            'choice', CASE
              WHEN d.status <> 'answered' THEN 'not_answered'
              WHEN d.refused THEN CASE d.kind WHEN 'question' THEN 'skipped' WHEN 'plan' THEN 'kept_planning' ELSE 'denied' END
              WHEN d.kind = 'question' THEN 'answered'
              WHEN d.kind = 'plan' THEN 'plan_approved'
              WHEN json_extract(d.answer, '$.optionId') = 'allow_always' THEN 'allowed_for_session'
              ELSE 'allowed_once' END,
            'resolution', coalesce(d.resolution, 'answered'),
            'answer', json(d.answer),
            'denyMessage', CASE
              WHEN d.status = 'answered' AND d.refused AND d.kind = 'approval'
                AND trim(coalesce(json_extract(d.answer, '$.payload.denyMessage'), '')) <> ''
              THEN trim(json_extract(d.answer, '$.payload.denyMessage')) END,
            'sessionGrant', NULL,
            'questions', json('[]'),
            'permissionMode', CASE
              WHEN d.status = 'answered' AND NOT d.refused AND d.kind = 'plan'
              THEN nullif(json_extract(d.answer, '$.optionId'), '') END,
            'decidedAt', coalesce(d.resolved_at, d.created_at))
          FROM decided d WHERE d.session_id = messages.session_id AND d.tool_use_id = messages.tool_use_id
          ORDER BY d.status = 'answered' DESC, d.resolved_at DESC LIMIT 1)),
        '$[0].elapsedSeconds', NULL)
      WHERE tool_use_id IS NOT NULL AND json_extract(content, '$[0].type') = 'tool_use';
    `,
  },
  {
    // The index of Claude Code's own transcripts (history/): one row per `<config>/projects/<folder>/<id>.jsonl`
    // as its last read found it. `size` and `mtime_ms` decide whether the file must be read again; `cwd` is NULL
    // for a transcript the SDK could not summarise (empty, only damaged lines), which is kept so it is not read
    // again until it changes, and not listed.
    version: 8,
    sql: `
      CREATE TABLE history_transcripts (
        path TEXT PRIMARY KEY,
        claude_session_id TEXT NOT NULL,
        cwd TEXT,
        summary TEXT,
        first_prompt TEXT,
        custom_title TEXT,
        git_branch TEXT,
        created_at INTEGER,
        mtime_ms INTEGER NOT NULL,
        size INTEGER NOT NULL,
        message_count INTEGER NOT NULL,
        indexed_at INTEGER NOT NULL
      );
      CREATE INDEX history_transcripts_by_session ON history_transcripts (claude_session_id);
    `,
  },
  {
    // SessionRecord.continuedFrom: the Claude Code session an Outrigger session continues (JSON), NULL for any
    // other. The index finds the Outrigger session that already resumes a Claude Code session (its provider
    // session id is that session's id), which a second continue is refused with.
    version: 9,
    sql: `
      ALTER TABLE sessions ADD COLUMN continued_from TEXT;
      CREATE INDEX sessions_by_provider_session ON sessions (provider_session_id, created_at);
    `,
  },
];

export const latestSchemaVersion = migrations.at(-1)!.version;

/** The version the database is at (0: empty). */
export function schemaVersion(db: DatabaseSync): number {
  const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (table === undefined) return 0;
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_version').get();
  return typeof row?.version === 'number' ? row.version : 0;
}

/** Brings the database to the latest version (or `target`); returns the versions it applied. */
export function migrate(
  db: DatabaseSync,
  options: { now?: number; target?: number; migrations?: typeof migrations } = {},
): number[] {
  const all = options.migrations ?? migrations;
  const latest = all.at(-1)?.version ?? 0;
  const target = options.target ?? latest;
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const current = schemaVersion(db);
  if (current > latest) {
    throw new StoreError(`the database is at schema version ${current}, newer than this host knows (${latest})`);
  }
  const applied: number[] = [];
  for (const migration of all) {
    if (migration.version <= current || migration.version > target) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(
        migration.version,
        options.now ?? Date.now(),
      );
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw new StoreError(`schema migration ${migration.version} failed`, { cause: error });
    }
    applied.push(migration.version);
  }
  return applied;
}
