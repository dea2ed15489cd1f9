import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { HostEvent, SessionEvent } from '@outrigger/host-api';
import { rememberEventDataJson } from '../eventJson.ts';
import type {
  AttachmentRecord,
  InteractionRecord,
  MessageRecord,
  SessionRecord,
  TaskRecord,
  TurnRecord,
} from '../records.ts';

/*
 * Records ↔ SQLite rows. Scalars get columns (they are filtered, sorted or unique); nested values are
 * JSON text. Booleans are 0/1. The column lists drive both the upserts and the reads, so a column
 * added in a migration is added here once.
 */

type Row = Record<string, SQLOutputValue>;
export type Params = Record<string, SQLInputValue>;

export interface TableMapping<R> {
  readonly table: string;
  readonly key: readonly string[];
  readonly columns: readonly string[];
  /**
   * The columns a put may change on an existing row. The others are the row's identity (its turn,
   * position, ids, creation time): a put leaves them as first written, and SQLite then leaves the
   * indexes on them alone, which is most of the cost of rewriting a streaming row per delta.
   */
  readonly updatable: readonly string[];
  toParams(record: R): Params;
  fromRow(row: Row): R;
}

const upserts = new WeakMap<TableMapping<unknown>, string>();

/**
 * `INSERT … ON CONFLICT (key) DO UPDATE` of the updatable columns: a put rewrites the row in place
 * (no delete, so no FK churn), its identity columns stay as first written. Its parameters are
 * positional, in `columns` order (`putValues`): binding by name costs node:sqlite a lookup per column,
 * half of a put's time.
 */
export function upsertSql(mapping: TableMapping<unknown>): string {
  let sql = upserts.get(mapping);
  if (sql === undefined) {
    const names = mapping.columns.join(', ');
    const values = mapping.columns.map(() => '?').join(', ');
    const conflict = `ON CONFLICT (${mapping.key.join(', ')})`;
    const updates = mapping.updatable.map((column) => `${column} = excluded.${column}`).join(', ');
    sql = `INSERT INTO ${mapping.table} (${names}) VALUES (${values}) ${conflict} ${updates === '' ? 'DO NOTHING' : `DO UPDATE SET ${updates}`}`;
    upserts.set(mapping, sql);
  }
  return sql;
}

/** A record's values for `upsertSql`, in column order. */
export function putValues<R>(mapping: TableMapping<R>, record: R): SQLInputValue[] {
  const params = mapping.toParams(record);
  return mapping.columns.map((column) => params[column] ?? null);
}

export function selectColumns(mapping: TableMapping<unknown>): string {
  return mapping.columns.join(', ');
}

const json = (value: unknown): string => JSON.stringify(value);
const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : json(value));
const parse = <T>(value: SQLOutputValue): T => JSON.parse(value as string) as T;
const parseOrNull = <T>(value: SQLOutputValue): T | null => (value === null ? null : parse<T>(value));
const text = (value: SQLOutputValue): string => value as string;
const textOrNull = (value: SQLOutputValue): string | null => (value === null ? null : (value as string));
const int = (value: SQLOutputValue): number => Number(value);
const intOrNull = (value: SQLOutputValue): number | null => (value === null ? null : Number(value));
const bool = (value: SQLOutputValue): boolean => value === 1;

export const sessionMapping: TableMapping<SessionRecord> = {
  table: 'sessions',
  key: ['id'],
  columns: [
    'id',
    'title',
    'title_source',
    'cwd',
    'closed',
    'status',
    'needs_input_count',
    'running_turn_id',
    'running_turn_started_at',
    'last_error',
    'settings',
    'effective_model',
    'config_options',
    'provider_session_id',
    'resume_cursor',
    'usage',
    'background_tasks',
    'forked_from_session_id',
    'forked_from_turn_id',
    'created_at',
    'updated_at',
    'last_activity_at',
  ],
  updatable: [
    'title',
    'title_source',
    'closed',
    'status',
    'needs_input_count',
    'running_turn_id',
    'running_turn_started_at',
    'last_error',
    'settings',
    'effective_model',
    'config_options',
    'provider_session_id',
    'resume_cursor',
    'usage',
    'background_tasks',
    'forked_from_session_id',
    'forked_from_turn_id',
    'updated_at',
    'last_activity_at',
  ],
  toParams: (s) => ({
    id: s.id,
    title: s.title,
    title_source: s.titleSource,
    cwd: s.cwd,
    closed: s.closed ? 1 : 0,
    status: s.status,
    needs_input_count: s.needsInputCount,
    running_turn_id: s.runningTurnId,
    running_turn_started_at: s.runningTurnStartedAt,
    last_error: jsonOrNull(s.lastError),
    settings: json(s.settings),
    effective_model: s.effectiveModel,
    config_options: json(s.configOptions),
    provider_session_id: s.providerSessionId,
    resume_cursor: jsonOrNull(s.resumeCursor),
    usage: json(s.usage),
    background_tasks: json(s.backgroundTasks),
    forked_from_session_id: s.forkedFrom?.sessionId ?? null,
    forked_from_turn_id: s.forkedFrom?.turnId ?? null,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    last_activity_at: s.lastActivityAt,
  }),
  fromRow: (r) => ({
    id: text(r.id),
    title: text(r.title),
    titleSource: text(r.title_source) as SessionRecord['titleSource'],
    cwd: text(r.cwd),
    closed: bool(r.closed),
    status: text(r.status) as SessionRecord['status'],
    needsInputCount: int(r.needs_input_count),
    runningTurnId: textOrNull(r.running_turn_id),
    runningTurnStartedAt: intOrNull(r.running_turn_started_at),
    lastError: parseOrNull(r.last_error),
    settings: parse(r.settings),
    effectiveModel: textOrNull(r.effective_model),
    configOptions: parse(r.config_options),
    providerSessionId: text(r.provider_session_id),
    resumeCursor: parseOrNull(r.resume_cursor),
    usage: parse(r.usage),
    backgroundTasks: parse(r.background_tasks),
    forkedFrom:
      r.forked_from_session_id === null
        ? null
        : { sessionId: text(r.forked_from_session_id), turnId: text(r.forked_from_turn_id) },
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
    lastActivityAt: int(r.last_activity_at),
  }),
};

export const turnMapping: TableMapping<TurnRecord> = {
  table: 'turns',
  key: ['session_id', 'id'],
  columns: [
    'session_id',
    'id',
    'ordinal',
    'kind',
    'status',
    'prompt',
    'input',
    'client_message_id',
    'provider_turn_id',
    'provider_session_id',
    'checkpoint_message_id',
    'stop_reason',
    'error',
    'cancel_disposition',
    'usage',
    'created_at',
    'started_at',
    'ended_at',
  ],
  updatable: [
    'status',
    'provider_turn_id',
    'provider_session_id',
    'checkpoint_message_id',
    'stop_reason',
    'error',
    'cancel_disposition',
    'usage',
    'started_at',
    'ended_at',
  ],
  toParams: (t) => ({
    session_id: t.sessionId,
    id: t.id,
    ordinal: t.ordinal,
    kind: t.kind,
    status: t.status,
    prompt: t.prompt,
    input: json(t.input),
    client_message_id: t.clientMessageId,
    provider_turn_id: t.providerTurnId,
    provider_session_id: t.providerSessionId,
    checkpoint_message_id: t.checkpointMessageId,
    stop_reason: t.stopReason,
    error: jsonOrNull(t.error),
    cancel_disposition: t.cancelDisposition,
    usage: jsonOrNull(t.usage),
    created_at: t.createdAt,
    started_at: t.startedAt,
    ended_at: t.endedAt,
  }),
  fromRow: (r) => ({
    sessionId: text(r.session_id),
    id: text(r.id),
    ordinal: int(r.ordinal),
    kind: text(r.kind) as TurnRecord['kind'],
    status: text(r.status) as TurnRecord['status'],
    prompt: textOrNull(r.prompt),
    input: parse(r.input),
    clientMessageId: textOrNull(r.client_message_id),
    providerTurnId: textOrNull(r.provider_turn_id),
    providerSessionId: textOrNull(r.provider_session_id),
    checkpointMessageId: textOrNull(r.checkpoint_message_id),
    stopReason: textOrNull(r.stop_reason),
    error: parseOrNull(r.error),
    cancelDisposition: textOrNull(r.cancel_disposition) as TurnRecord['cancelDisposition'],
    usage: parseOrNull(r.usage),
    createdAt: int(r.created_at),
    startedAt: intOrNull(r.started_at),
    endedAt: intOrNull(r.ended_at),
  }),
};

export const messageMapping: TableMapping<MessageRecord> = {
  table: 'messages',
  key: ['session_id', 'id'],
  columns: [
    'session_id',
    'id',
    'turn_id',
    'position',
    'role',
    'status',
    'content',
    'notice_kind',
    'steer',
    'client_message_id',
    'tool_use_id',
    'source_message_id',
    'created_at',
    'updated_at',
  ],
  updatable: ['status', 'content', 'updated_at'],
  toParams: (m) => ({
    session_id: m.sessionId,
    id: m.id,
    turn_id: m.turnId,
    position: m.position,
    role: m.role,
    status: m.status,
    content: json(m.content),
    notice_kind: m.noticeKind,
    steer: m.steer ? 1 : 0,
    client_message_id: m.clientMessageId,
    tool_use_id: m.toolUseId,
    source_message_id: m.sourceMessageId,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  }),
  fromRow: (r) => ({
    sessionId: text(r.session_id),
    id: text(r.id),
    turnId: text(r.turn_id),
    position: int(r.position),
    role: text(r.role) as MessageRecord['role'],
    status: text(r.status) as MessageRecord['status'],
    content: parse(r.content),
    noticeKind: textOrNull(r.notice_kind) as MessageRecord['noticeKind'],
    steer: bool(r.steer),
    clientMessageId: textOrNull(r.client_message_id),
    toolUseId: textOrNull(r.tool_use_id),
    sourceMessageId: textOrNull(r.source_message_id),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  }),
};

export const interactionMapping: TableMapping<InteractionRecord> = {
  table: 'interactions',
  key: ['session_id', 'request_id'],
  columns: [
    'session_id',
    'request_id',
    'turn_id',
    'kind',
    'tool_name',
    'tool_use_id',
    'input',
    'options',
    'agent_id',
    'parent_tool_use_id',
    'status',
    'answer',
    'resolution',
    'created_at',
    'resolved_at',
  ],
  updatable: ['status', 'answer', 'resolution', 'resolved_at'],
  toParams: (i) => ({
    session_id: i.session_id,
    request_id: i.requestId,
    turn_id: i.turnId,
    kind: i.kind,
    tool_name: i.toolName,
    tool_use_id: i.tool_use_id,
    input: json(i.input),
    options: json(i.options),
    agent_id: i.agentId,
    parent_tool_use_id: i.parentToolUseId,
    status: i.status,
    answer: jsonOrNull(i.answer),
    resolution: i.resolution,
    created_at: i.createdAt,
    resolved_at: i.resolvedAt,
  }),
  fromRow: (r) => ({
    session_id: text(r.session_id),
    requestId: text(r.request_id),
    turnId: text(r.turn_id),
    kind: text(r.kind) as InteractionRecord['kind'],
    toolName: text(r.tool_name),
    tool_use_id: text(r.tool_use_id),
    input: parse(r.input),
    options: parse(r.options),
    agentId: textOrNull(r.agent_id),
    parentToolUseId: textOrNull(r.parent_tool_use_id),
    status: text(r.status) as InteractionRecord['status'],
    answer: parseOrNull(r.answer),
    resolution: textOrNull(r.resolution) as InteractionRecord['resolution'],
    createdAt: int(r.created_at),
    resolvedAt: intOrNull(r.resolved_at),
  }),
};

export const taskMapping: TableMapping<TaskRecord> = {
  table: 'tasks',
  key: ['id'],
  columns: ['id', 'session_id', 'title', 'status', 'description', 'sort_order', 'source', 'created_at', 'updated_at'],
  updatable: ['title', 'status', 'description', 'sort_order', 'updated_at'],
  toParams: (t) => ({
    id: t.id,
    session_id: t.session_id,
    title: t.title,
    status: t.status,
    description: t.description,
    sort_order: t.sort_order,
    source: t.source,
    created_at: t.created_at,
    updated_at: t.updated_at,
  }),
  fromRow: (r) => ({
    id: text(r.id),
    session_id: text(r.session_id),
    title: text(r.title),
    status: text(r.status) as TaskRecord['status'],
    description: textOrNull(r.description),
    sort_order: int(r.sort_order),
    source: text(r.source) as TaskRecord['source'],
    created_at: int(r.created_at),
    updated_at: int(r.updated_at),
  }),
};

export const attachmentMapping: TableMapping<AttachmentRecord> = {
  table: 'attachments',
  key: ['id'],
  columns: ['id', 'session_id', 'turn_id', 'media_type', 'bytes', 'created_at'],
  updatable: [],
  toParams: (a) => ({
    id: a.id,
    session_id: a.sessionId,
    turn_id: a.turnId,
    media_type: a.mediaType,
    bytes: a.bytes,
    created_at: a.createdAt,
  }),
  fromRow: (r) => ({
    id: text(r.id),
    sessionId: text(r.session_id),
    turnId: textOrNull(r.turn_id),
    mediaType: text(r.media_type) as AttachmentRecord['mediaType'],
    bytes: r.bytes as Uint8Array,
    createdAt: int(r.created_at),
  }),
};

/** Stored events keep their whole payload (seq included) as JSON; the type has its own column. */
export function sessionEventFromRow(row: Row): SessionEvent {
  return eventFromRow(row) as SessionEvent;
}

export function hostEventFromRow(row: Row): HostEvent {
  return eventFromRow(row) as HostEvent;
}

function eventFromRow(row: Row): { type: string; data: object } {
  const text = row.data as string;
  const data = JSON.parse(text) as object;
  rememberEventDataJson(data, text);
  return { type: row.type as string, data };
}
