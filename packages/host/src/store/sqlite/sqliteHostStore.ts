import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { type HostEvent, type SessionEvent, type TurnStatus, terminalTurnStatuses } from '@outrigger/host-api';
import { rememberEventDataJson } from '../eventJson.ts';
import type {
  ClientMessageHit,
  CommitResult,
  HistoryTranscriptRecord,
  HostStore,
  InteractionFilter,
  InteractionListRecords,
  MessagePageQuery,
  MessageRecordPage,
  ProjectionStateRecords,
  ProviderSessionOwner,
  SessionListFilter,
  SessionListRecords,
  SessionSearchRecord,
  SessionSnapshotRecords,
  TranscriptCopy,
  WriteUnit,
} from '../hostStore.ts';
import type {
  AttachmentRecord,
  InteractionRecord,
  MessageRecord,
  SessionRecord,
  TaskRecord,
  TurnRecord,
} from '../records.ts';
import { StoreError } from '../storeError.ts';
import { migrate } from './migrations.ts';
import {
  attachmentMapping,
  historyTranscriptMapping,
  hostEventFromRow,
  interactionMapping,
  messageMapping,
  selectColumns,
  sessionEventFromRow,
  sessionMapping,
  type TableMapping,
  taskMapping,
  turnMapping,
  upsertSql,
} from './rowMapping.ts';

export interface SqliteHostStoreOptions {
  /** A file path, or `:memory:` (tests). */
  readonly path: string;
  /**
   * Fault injection for tests: runs inside the transaction after every statement of the commit and
   * before `COMMIT`; a throw rolls the whole transaction back.
   */
  readonly beforeCommit?: (units: readonly WriteUnit[]) => void;
  /**
   * Fault injection for tests: runs in place of the transaction's `COMMIT` and must call `commit` to run
   * it. Throwing instead stands for a `COMMIT` that fails after every statement was applied (busy, a full
   * disk, an I/O error); the store rolls back and refuses the write as for any other failure.
   */
  readonly atCommit?: (commit: () => void) => void;
}

/**
 * The host's store on SQLite (`node:sqlite`): WAL with `synchronous=NORMAL` (a commit survives the
 * death of any process; a power cut may lose the last moments), foreign keys on, versioned
 * migrations, prepared statements cached by SQL text. One connection: SQLite calls are synchronous,
 * so a commit or a multi-table read never interleaves with another and every read is consistent.
 * The event seqs are kept in memory after their first read (this process is the only writer).
 */
export class SqliteHostStore implements HostStore {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #beforeCommit: SqliteHostStoreOptions['beforeCommit'];
  readonly #atCommit: SqliteHostStoreOptions['atCommit'];
  readonly #sessionSeqs = new Map<string, number>();
  #hostSeq: number | undefined;
  #closed = false;

  private constructor(db: DatabaseSync, options: SqliteHostStoreOptions) {
    this.#db = db;
    this.#beforeCommit = options.beforeCommit;
    this.#atCommit = options.atCommit;
  }

  /** Opens (creating when absent) and migrates. Throws `StoreError` when the file cannot be used. */
  static open(options: SqliteHostStoreOptions): SqliteHostStore {
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(options.path, { enableForeignKeyConstraints: true });
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec('PRAGMA foreign_keys = ON');
      db.exec('PRAGMA busy_timeout = 5000');
    } catch (error) {
      throw new StoreError('the database could not be opened', { cause: error });
    }
    try {
      migrate(db);
    } catch (error) {
      db.close();
      throw error instanceof StoreError
        ? error
        : new StoreError('the database could not be migrated', { cause: error });
    }
    return new SqliteHostStore(db, options);
  }

  // ─── writes ────────────────────────────────────────────────────────────────────────────────────

  async commit(unit: WriteUnit): Promise<CommitResult> {
    return this.#transaction([unit])[0]!;
  }

  async commitMany(units: readonly WriteUnit[]): Promise<CommitResult[]> {
    if (units.length === 0) return [];
    return this.#transaction(units);
  }

  #transaction(units: readonly WriteUnit[]): CommitResult[] {
    this.#assertOpen();
    const sessionSeqs = new Map<string, number>();
    const hostSeq = { value: this.#currentHostSeq() };
    let results: CommitResult[];
    try {
      // Prepared once, like every statement: `exec` would parse them again for each transaction.
      this.#statement('BEGIN IMMEDIATE').run();
      results = units.map((unit) => this.#apply(unit, sessionSeqs, hostSeq));
      this.#beforeCommit?.(units);
      const commit = () => this.#statement('COMMIT').run();
      if (this.#atCommit === undefined) commit();
      else this.#atCommit(commit);
    } catch (error) {
      if (this.#db.isTransaction) this.#statement('ROLLBACK').run();
      throw new StoreError(`the store refused a write: ${reason(error)}`, { cause: error });
    }
    for (const [sessionId, seq] of sessionSeqs) this.#sessionSeqs.set(sessionId, seq);
    this.#hostSeq = hostSeq.value;
    return results;
  }

  #apply(unit: WriteUnit, sessionSeqs: Map<string, number>, hostSeq: { value: number }): CommitResult {
    for (const id of unit.deleteSessionIds ?? []) this.#deleteSession(id, sessionSeqs);
    this.#putAll(sessionMapping, unit.sessions);
    if (unit.copyTranscript !== undefined) this.#copyTranscript(unit.copyTranscript);
    this.#putAll(turnMapping, unit.turns);
    this.#putAll(attachmentMapping, unit.attachments);
    this.#putAll(messageMapping, unit.messages);
    this.#putAll(interactionMapping, unit.interactions);
    this.#putAll(taskMapping, unit.tasks);
    for (const id of unit.deleteTaskIds ?? []) this.#statement('DELETE FROM tasks WHERE id = ?').run(id);

    const sessionEvents: SessionEvent[] = [];
    for (const draft of unit.sessionEvents ?? []) {
      const sessionId = draft.data.session_id;
      const seq = (sessionSeqs.get(sessionId) ?? this.#currentSessionSeq(sessionId)) + 1;
      const data = { ...draft.data, session_id: sessionId, seq };
      const text = JSON.stringify(data);
      this.#statement(
        'INSERT INTO session_events (session_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)',
      ).run(sessionId, seq, draft.type, text, Date.now());
      rememberEventDataJson(data, text);
      sessionSeqs.set(sessionId, seq);
      sessionEvents.push({ type: draft.type, data } as SessionEvent);
    }

    const hostEvents: HostEvent[] = [];
    for (const draft of unit.hostEvents ?? []) {
      const seq = hostSeq.value + 1;
      const data = { seq, ...draft.data };
      const text = JSON.stringify(data);
      this.#statement('INSERT INTO host_events (seq, type, data, created_at) VALUES (?, ?, ?, ?)').run(
        seq,
        draft.type,
        text,
        Date.now(),
      );
      rememberEventDataJson(data, text);
      hostSeq.value = seq;
      hostEvents.push({ type: draft.type, data } as HostEvent);
    }
    return { sessionEvents, hostEvents };
  }

  #putAll<R>(mapping: TableMapping<R>, records: readonly R[] | undefined): void {
    if (records === undefined || records.length === 0) return;
    const statement = this.#statement(upsertSql(mapping));
    for (const record of records) statement.run(...mapping.values(record));
  }

  /**
   * Every row of the session, children before the session row (foreign keys), its event log, and the host
   * log's events that name it (a summary, an interaction): a deleted session's titles and prompts are gone.
   */
  #deleteSession(sessionId: string, sessionSeqs: Map<string, number>): void {
    for (const table of ['messages', 'attachments', 'interactions', 'tasks', 'session_events', 'turns']) {
      this.#statement(`DELETE FROM ${table} WHERE session_id = ?`).run(sessionId);
    }
    this.#statement(
      `DELETE FROM host_events WHERE json_extract(data, '$.session.id') = ?1 OR json_extract(data, '$.session_id') = ?1`,
    ).run(sessionId);
    this.#statement('DELETE FROM sessions WHERE id = ?').run(sessionId);
    // Its seq counter is forgotten only once the transaction commits (a rollback keeps the log as it was).
    sessionSeqs.set(sessionId, 0);
  }

  #copyTranscript(copy: TranscriptCopy): void {
    const through = this.#statement('SELECT ordinal FROM turns WHERE session_id = ? AND id = ?').get(
      copy.fromSessionId,
      copy.throughTurnId,
    );
    if (through === undefined) throw new StoreError('the fork turn does not exist in the source session');
    const turnColumns = turnMapping.columns.filter((column) => column !== 'session_id').join(', ');
    this.#statement(
      `INSERT INTO turns (session_id, ${turnColumns}) SELECT ?, ${turnColumns} FROM turns WHERE session_id = ? AND ordinal <= ?`,
    ).run(copy.toSessionId, copy.fromSessionId, through.ordinal);
    const messageColumns = messageMapping.columns.filter((column) => column !== 'session_id').join(', ');
    this.#statement(
      `INSERT INTO messages (session_id, ${messageColumns}) SELECT ?, ${messageColumns} FROM messages
       WHERE session_id = ? AND turn_id IN (SELECT id FROM turns WHERE session_id = ? AND ordinal <= ?)`,
    ).run(copy.toSessionId, copy.fromSessionId, copy.fromSessionId, through.ordinal);
  }

  #currentSessionSeq(sessionId: string): number {
    const cached = this.#sessionSeqs.get(sessionId);
    if (cached !== undefined) return cached;
    const row = this.#statement('SELECT MAX(seq) AS seq FROM session_events WHERE session_id = ?').get(sessionId);
    const seq = typeof row?.seq === 'number' ? row.seq : 0;
    this.#sessionSeqs.set(sessionId, seq);
    return seq;
  }

  #currentHostSeq(): number {
    if (this.#hostSeq === undefined) {
      const row = this.#statement('SELECT MAX(seq) AS seq FROM host_events').get();
      this.#hostSeq = typeof row?.seq === 'number' ? row.seq : 0;
    }
    return this.#hostSeq;
  }

  // ─── reads ─────────────────────────────────────────────────────────────────────────────────────

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.#sessionSync(sessionId);
  }

  async findSessionByProviderSession(providerSessionId: string): Promise<SessionRecord | undefined> {
    return this.#one(
      sessionMapping,
      `SELECT ${selectColumns(sessionMapping)} FROM sessions WHERE provider_session_id = ?
       ORDER BY created_at, id LIMIT 1`,
      [providerSessionId],
    );
  }

  async listSessions(options: SessionListFilter): Promise<SessionRecord[]> {
    return this.#sessionsSync(options);
  }

  async searchSessions(text: string, filter: SessionListFilter, limit: number): Promise<SessionSearchRecord[]> {
    // LIKE with an escape character: the text is matched literally (`%` and `_` are no wildcards).
    const pattern = `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    const where = sessionWhere(filter);
    // The newest matching prompt comes with its session (id and text as one JSON pair): one query, not one per hit.
    const rows = this.#statement(
      `SELECT ${selectColumns(sessionMapping)},
         (SELECT json_array(t.id, t.prompt) FROM turns t WHERE t.session_id = s.id AND t.prompt LIKE ?1 ESCAPE '\\'
          ORDER BY t.ordinal DESC LIMIT 1) AS hit_prompt
       FROM sessions s
       WHERE ${where === '' ? '' : `${where} AND `}(s.title LIKE ?1 ESCAPE '\\' OR hit_prompt IS NOT NULL)
       ORDER BY s.created_at DESC, s.id DESC LIMIT ?2`,
    ).all(pattern, limit);
    return rows.map((row) => {
      const session = sessionMapping.fromRow(row);
      const titleHit = session.title.toLowerCase().includes(text.toLowerCase());
      if (titleHit || row.hit_prompt === null) return { session, prompt: null };
      const [turnId, prompt] = JSON.parse(String(row.hit_prompt)) as [string, string | null];
      return { session, prompt: { turnId, text: prompt ?? '' } };
    });
  }

  async recentCwds(limit: number): Promise<{ cwd: string; lastUsedAt: number }[]> {
    this.#assertOpen();
    return this.#statement(
      `SELECT cwd, MAX(last_activity_at) AS used FROM sessions WHERE worktree IS NULL
       GROUP BY cwd ORDER BY used DESC LIMIT ?`,
    )
      .all(limit)
      .map((row) => ({ cwd: row.cwd as string, lastUsedAt: Number(row.used) }));
  }

  async getTurn(sessionId: string, turnId: string): Promise<TurnRecord | undefined> {
    return this.#one(turnMapping, `SELECT ${selectColumns(turnMapping)} FROM turns WHERE session_id = ? AND id = ?`, [
      sessionId,
      turnId,
    ]);
  }

  async listTurns(
    sessionId: string,
    filter: { statuses?: readonly TurnStatus[]; ids?: readonly string[] } = {},
  ): Promise<TurnRecord[]> {
    return this.#turnsSync(sessionId, filter);
  }

  async findClientMessage(sessionId: string, clientMessageId: string): Promise<ClientMessageHit | undefined> {
    this.#assertOpen();
    const turn = this.#statement('SELECT id FROM turns WHERE session_id = ? AND client_message_id = ?').get(
      sessionId,
      clientMessageId,
    );
    if (turn !== undefined) return { turnId: turn.id as string, steer: false };
    const message = this.#statement(
      'SELECT turn_id, steer FROM messages WHERE session_id = ? AND client_message_id = ?',
    ).get(sessionId, clientMessageId);
    if (message !== undefined) return { turnId: message.turn_id as string, steer: message.steer === 1 };
    return undefined;
  }

  async listMessages(sessionId: string, query: MessagePageQuery): Promise<MessageRecordPage> {
    return this.#messagePageSync(sessionId, query);
  }

  async listTurnMessages(sessionId: string, turnId: string): Promise<MessageRecord[]> {
    return this.#all(
      messageMapping,
      `SELECT ${selectColumns(messageMapping)} FROM messages WHERE session_id = ? AND turn_id = ? ORDER BY position`,
      [sessionId, turnId],
    );
  }

  async getMessage(sessionId: string, messageId: string): Promise<MessageRecord | undefined> {
    return this.#one(
      messageMapping,
      `SELECT ${selectColumns(messageMapping)} FROM messages WHERE session_id = ? AND id = ?`,
      [sessionId, messageId],
    );
  }

  async getToolMessage(sessionId: string, toolUseId: string): Promise<MessageRecord | undefined> {
    return this.#one(
      messageMapping,
      `SELECT ${selectColumns(messageMapping)} FROM messages WHERE session_id = ? AND tool_use_id = ?`,
      [sessionId, toolUseId],
    );
  }

  async listTasks(sessionId?: string): Promise<TaskRecord[]> {
    return this.#tasksOf(sessionId);
  }

  async getTask(taskId: string): Promise<TaskRecord | undefined> {
    return this.#one(taskMapping, `SELECT ${selectColumns(taskMapping)} FROM tasks WHERE id = ?`, [taskId]);
  }

  async listInteractions(filter: InteractionFilter): Promise<InteractionRecord[]> {
    return this.#interactionsSync(filter);
  }

  async getInteraction(sessionId: string, requestId: string): Promise<InteractionRecord | undefined> {
    return this.#one(
      interactionMapping,
      `SELECT ${selectColumns(interactionMapping)} FROM interactions WHERE session_id = ? AND request_id = ?`,
      [sessionId, requestId],
    );
  }

  async getAttachment(attachmentId: string): Promise<AttachmentRecord | undefined> {
    return this.#one(attachmentMapping, `SELECT ${selectColumns(attachmentMapping)} FROM attachments WHERE id = ?`, [
      attachmentId,
    ]);
  }

  async readSessionEvents(sessionId: string, afterSeq: number, limit: number): Promise<SessionEvent[]> {
    this.#assertOpen();
    return this.#statement(
      'SELECT type, data FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    )
      .all(sessionId, afterSeq, limit)
      .map(sessionEventFromRow);
  }

  async readHostEvents(afterSeq: number, limit: number): Promise<HostEvent[]> {
    this.#assertOpen();
    return this.#statement('SELECT type, data FROM host_events WHERE seq > ? ORDER BY seq LIMIT ?')
      .all(afterSeq, limit)
      .map(hostEventFromRow);
  }

  async lastSessionSeq(sessionId: string): Promise<number> {
    this.#assertOpen();
    return this.#currentSessionSeq(sessionId);
  }

  async lastHostSeq(): Promise<number> {
    this.#assertOpen();
    return this.#currentHostSeq();
  }

  async loadSessionSnapshot(sessionId: string, pageLimit: number): Promise<SessionSnapshotRecords | undefined> {
    const session = this.#sessionSync(sessionId);
    if (session === undefined) return undefined;
    const page = this.#messagePageSync(sessionId, { limit: pageLimit });
    const pageTurnIds = [...new Set(page.messages.map((message) => message.turnId))];
    return {
      session,
      lastSeq: this.#currentSessionSeq(sessionId),
      liveTurns: this.#turnsSync(sessionId, { statuses: ['queued', 'running'] }),
      pendingInteractions: this.#interactionsSync({ sessionId, status: 'pending' }),
      tasks: this.#tasksOf(sessionId),
      page,
      pageTurns: pageTurnIds.length === 0 ? [] : this.#turnsSync(sessionId, { ids: pageTurnIds }),
    };
  }

  async loadProjectionState(sessionId: string): Promise<ProjectionStateRecords | undefined> {
    const session = this.#sessionSync(sessionId);
    if (session === undefined) return undefined;
    const ids = new Set<string>();
    for (const turn of this.#turnsSync(sessionId, { statuses: ['queued', 'running'] })) ids.add(turn.id);
    for (const task of session.backgroundTasks) ids.add(task.turnId);
    const lastTerminal = this.#statement(
      `SELECT id FROM turns WHERE session_id = ? AND status IN (${terminalTurnStatuses.map(() => '?').join(', ')})
       ORDER BY ordinal DESC LIMIT 1`,
    ).get(sessionId, ...terminalTurnStatuses);
    if (lastTerminal !== undefined) ids.add(lastTerminal.id as string);
    const turns = ids.size === 0 ? [] : this.#turnsSync(sessionId, { ids: [...ids] });
    const turnIds = turns.map((turn) => turn.id);
    const messages =
      turnIds.length === 0
        ? []
        : this.#all(
            messageMapping,
            `SELECT ${selectColumns(messageMapping)} FROM messages
             WHERE session_id = ? AND turn_id IN (${turnIds.map(() => '?').join(', ')}) ORDER BY position`,
            [sessionId, ...turnIds],
          );
    const counters = this.#statement(
      `SELECT (SELECT MAX(position) FROM messages WHERE session_id = ?1) AS position,
              (SELECT MAX(ordinal) FROM turns WHERE session_id = ?1) AS ordinal,
              EXISTS (SELECT 1 FROM turns WHERE session_id = ?1 AND provider_turn_id IS NOT NULL) AS accepted`,
    ).get(sessionId);
    return {
      session,
      turns,
      messages,
      pendingInteractions: this.#interactionsSync({ sessionId, status: 'pending' }),
      lastSeq: this.#currentSessionSeq(sessionId),
      nextPosition: counters?.position === null || counters === undefined ? 0 : Number(counters.position) + 1,
      nextTurnOrdinal: counters?.ordinal === null || counters === undefined ? 0 : Number(counters.ordinal) + 1,
      hasAcceptedTurn: counters?.accepted === 1,
    };
  }

  async loadSessionList(options: SessionListFilter): Promise<SessionListRecords> {
    return { sessions: this.#sessionsSync(options), lastHostSeq: this.#currentHostSeq() };
  }

  async loadInteractionList(filter: InteractionFilter): Promise<InteractionListRecords> {
    return { interactions: this.#interactionsSync(filter), lastHostSeq: this.#currentHostSeq() };
  }

  async listHistoryTranscripts(): Promise<HistoryTranscriptRecord[]> {
    return this.#all(
      historyTranscriptMapping,
      `SELECT ${selectColumns(historyTranscriptMapping)} FROM history_transcripts`,
    );
  }

  async findHistoryTranscripts(claudeSessionId: string): Promise<HistoryTranscriptRecord[]> {
    return this.#all(
      historyTranscriptMapping,
      `SELECT ${selectColumns(historyTranscriptMapping)} FROM history_transcripts WHERE claude_session_id = ?
       ORDER BY mtime_ms DESC, path`,
      [claudeSessionId],
    );
  }

  async updateHistoryTranscripts(
    put: readonly HistoryTranscriptRecord[],
    deletePaths: readonly string[],
  ): Promise<void> {
    this.#assertOpen();
    if (put.length === 0 && deletePaths.length === 0) return;
    try {
      this.#statement('BEGIN IMMEDIATE').run();
      const remove = this.#statement('DELETE FROM history_transcripts WHERE path = ?');
      for (const path of deletePaths) remove.run(path);
      this.#putAll(historyTranscriptMapping, put);
      this.#statement('COMMIT').run();
    } catch (error) {
      if (this.#db.isTransaction) this.#statement('ROLLBACK').run();
      throw new StoreError(`the store refused a write: ${reason(error)}`, { cause: error });
    }
  }

  async listProviderSessionOwners(): Promise<ProviderSessionOwner[]> {
    this.#assertOpen();
    return this.#statement(
      `SELECT o.provider_session_id, s.id, s.closed, s.created_at FROM (
         SELECT id AS session_id, provider_session_id FROM sessions
         UNION SELECT session_id, provider_session_id FROM turns WHERE provider_session_id IS NOT NULL
       ) o JOIN sessions s ON s.id = o.session_id`,
    )
      .all()
      .map((row) => ({
        providerSessionId: String(row.provider_session_id),
        sessionId: String(row.id),
        closed: row.closed === 1,
        createdAt: Number(row.created_at),
      }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.#db.close();
  }

  // ─── helpers ───────────────────────────────────────────────────────────────────────────────────

  #sessionSync(sessionId: string): SessionRecord | undefined {
    return this.#one(sessionMapping, `SELECT ${selectColumns(sessionMapping)} FROM sessions WHERE id = ?`, [sessionId]);
  }

  #sessionsSync(options: SessionListFilter): SessionRecord[] {
    const where = sessionWhere(options);
    return this.#all(
      sessionMapping,
      `SELECT ${selectColumns(sessionMapping)} FROM sessions s ${where === '' ? '' : `WHERE ${where}`}
       ORDER BY created_at DESC, id DESC`,
    );
  }

  #turnsSync(sessionId: string, filter: { statuses?: readonly TurnStatus[]; ids?: readonly string[] }): TurnRecord[] {
    const clauses = ['session_id = ?'];
    const params: SQLInputValue[] = [sessionId];
    if (filter.statuses !== undefined) {
      clauses.push(`status IN (${filter.statuses.map(() => '?').join(', ') || 'NULL'})`);
      params.push(...filter.statuses);
    }
    if (filter.ids !== undefined) {
      clauses.push(`id IN (${filter.ids.map(() => '?').join(', ') || 'NULL'})`);
      params.push(...filter.ids);
    }
    return this.#all(
      turnMapping,
      `SELECT ${selectColumns(turnMapping)} FROM turns WHERE ${clauses.join(' AND ')} ORDER BY ordinal`,
      params,
    );
  }

  #messagePageSync(sessionId: string, query: MessagePageQuery): MessageRecordPage {
    const limit = Math.max(1, Math.floor(query.limit));
    const rows = this.#all(
      messageMapping,
      `SELECT ${selectColumns(messageMapping)} FROM messages WHERE session_id = ? AND position < ?
       ORDER BY position DESC LIMIT ?`,
      [sessionId, query.before ?? Number.MAX_SAFE_INTEGER, limit + 1],
    );
    const hasMore = rows.length > limit;
    return { messages: rows.slice(0, limit).reverse(), hasMore };
  }

  #interactionsSync(filter: InteractionFilter): InteractionRecord[] {
    const clauses: string[] = [];
    const params: SQLInputValue[] = [];
    if (filter.sessionId !== undefined) {
      clauses.push('session_id = ?');
      params.push(filter.sessionId);
    }
    if (filter.status !== undefined) {
      clauses.push('status = ?');
      params.push(filter.status);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    return this.#all(
      interactionMapping,
      `SELECT ${selectColumns(interactionMapping)} FROM interactions ${where} ORDER BY created_at, request_id`,
      params,
    );
  }

  /** `compareTasks`'s order (@outrigger/host-api): the projection sorts the lists it builds the same way. */
  #tasksOf(sessionId: string | undefined): TaskRecord[] {
    const where = sessionId === undefined ? '' : 'WHERE session_id = ?';
    return this.#all(
      taskMapping,
      `SELECT ${selectColumns(taskMapping)} FROM tasks ${where}
       ORDER BY session_id, CASE source WHEN 'sdk' THEN 0 ELSE 1 END, sort_order, created_at, id`,
      sessionId === undefined ? [] : [sessionId],
    );
  }

  #one<R>(mapping: TableMapping<R>, sql: string, params: SQLInputValue[]): R | undefined {
    this.#assertOpen();
    const row = this.#statement(sql).get(...params);
    return row === undefined ? undefined : mapping.fromRow(row);
  }

  #all<R>(mapping: TableMapping<R>, sql: string, params: SQLInputValue[] = []): R[] {
    this.#assertOpen();
    return this.#statement(sql)
      .all(...params)
      .map((row) => mapping.fromRow(row));
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreError('the store is closed');
  }
}

/** The list filter as a condition on `sessions s` (empty: every session). */
function sessionWhere(filter: SessionListFilter): string {
  const clauses: string[] = [];
  if (!filter.includeClosed) clauses.push('s.closed = 0');
  const archived = filter.archived ?? 'include';
  if (archived === 'exclude') clauses.push('s.archived_at IS NULL');
  if (archived === 'only') clauses.push('s.archived_at IS NOT NULL');
  return clauses.join(' AND ');
}

function reason(error: unknown): string {
  if (error instanceof StoreError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
