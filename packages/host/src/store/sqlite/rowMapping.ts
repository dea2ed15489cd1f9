import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { HostEvent, SessionEvent } from '@outrigger/host-api';
import { rememberEventDataJson } from '../eventJson.ts';
import type { HistoryTranscriptRecord } from '../hostStore.ts';
import type * as records from '../records.ts';

/*
 * Records ↔ SQLite rows. Scalars get columns (they are filtered, sorted or unique); nested values are
 * JSON text. Booleans are 0/1. Each table is one list of its record's fields, each field naming its
 * column once: that list drives the upserts and the reads, so a column added in a migration is added
 * here once.
 */

type Row = Record<string, SQLOutputValue>;

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
  /** A record's values for `upsertSql`, in `columns` order. */
  values(record: R): SQLInputValue[];
  fromRow(row: Row): R;
}

const upserts = new WeakMap<object, string>();

/**
 * `INSERT … ON CONFLICT (key) DO UPDATE` of the updatable columns: a put rewrites the row in place
 * (no delete, so no FK churn), its identity columns stay as first written. Its parameters are
 * positional, in `columns` order (`TableMapping.values`): binding by name costs node:sqlite a lookup
 * per column, half of a put's time.
 */
export function upsertSql<R>(mapping: TableMapping<R>): string {
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

export function selectColumns<R>(mapping: TableMapping<R>): string {
  return mapping.columns.join(', ');
}

/** How one record field is stored: its column (or columns), and whether a put may change it. */
interface Field<V> {
  readonly columns: readonly string[];
  readonly updatable: boolean;
  /** Appends the field's column values, in `columns` order. */
  write(value: V, values: SQLInputValue[]): void;
  read(row: Row): V;
}

/** Every field of the record, in the order of its columns (and of the record a read returns). */
type Fields<R> = { readonly [K in keyof R]-?: Field<R[K]> };

function tableMapping<R>(table: string, key: readonly string[], fields: Fields<R>): TableMapping<R> {
  const entries = Object.entries(fields) as [keyof R & string, Field<R[keyof R]>][];
  return {
    table,
    key,
    columns: entries.flatMap(([, field]) => field.columns),
    updatable: entries.flatMap(([, field]) => (field.updatable ? field.columns : [])),
    values(record) {
      const values: SQLInputValue[] = [];
      for (const [name, field] of entries) field.write(record[name], values);
      return values;
    },
    fromRow(row) {
      const record: Partial<Record<keyof R, unknown>> = {};
      for (const [name, field] of entries) record[name] = field.read(row);
      return record as R;
    },
  };
}

/** A field in one column; a value the record leaves undefined is stored as NULL. */
function column<V>(name: string, toSql: (value: V) => SQLInputValue, fromSql: (value: SQLOutputValue) => V): Field<V> {
  return {
    columns: [name],
    updatable: true,
    write: (value, values) => {
      values.push(toSql(value) ?? null);
    },
    read: (row) => fromSql(row[name]),
  };
}

/** Part of the row's identity: written once, left alone by later puts. */
const fixed = <V>(field: Field<V>): Field<V> => ({ ...field, updatable: false });

const text = <V extends string>(name: string): Field<V> =>
  column(
    name,
    (value) => value,
    (value) => value as V,
  );
const textOrNull = <V extends string>(name: string): Field<V | null> =>
  column(
    name,
    (value) => value,
    (value) => value as V | null,
  );
const int = (name: string): Field<number> => column(name, (value) => value, Number);
const intOrNull = (name: string): Field<number | null> =>
  column(
    name,
    (value) => value,
    (value) => (value === null ? null : Number(value)),
  );
const bool = (name: string): Field<boolean> =>
  column(
    name,
    (value) => (value ? 1 : 0),
    (value) => value === 1,
  );
const bytes = (name: string): Field<Uint8Array> =>
  column(
    name,
    (value) => value,
    (value) => value as Uint8Array,
  );
const json = <V>(name: string): Field<V> =>
  column(
    name,
    (value) => JSON.stringify(value),
    (value) => JSON.parse(value as string) as V,
  );
const jsonOrNull = <V>(name: string): Field<V | null> =>
  column(
    name,
    (value) => (value === null || value === undefined ? null : JSON.stringify(value)),
    (value) => (value === null ? null : (JSON.parse(value as string) as V)),
  );

/** A fork's origin is two columns, both NULL for a session that is no fork. */
const forkedFrom: Field<records.SessionRecord['forkedFrom']> = {
  columns: ['forked_from_session_id', 'forked_from_turn_id'],
  updatable: true,
  write: (fork, values) => {
    values.push(fork?.sessionId ?? null, fork?.turnId ?? null);
  },
  read: (row) =>
    row.forked_from_session_id === null
      ? null
      : { sessionId: row.forked_from_session_id as string, turnId: row.forked_from_turn_id as string },
};

export const sessionMapping = tableMapping<records.SessionRecord>('sessions', ['id'], {
  id: fixed(text('id')),
  title: text('title'),
  titleSource: text('title_source'),
  cwd: fixed(text('cwd')),
  closed: bool('closed'),
  status: text('status'),
  needsInputCount: int('needs_input_count'),
  runningTurnId: textOrNull('running_turn_id'),
  runningTurnStartedAt: intOrNull('running_turn_started_at'),
  queuePaused: bool('queue_paused'),
  lastError: jsonOrNull('last_error'),
  settings: json('settings'),
  effectiveModel: textOrNull('effective_model'),
  configOptions: json('config_options'),
  slashCommands: json('slash_commands'),
  providerSessionId: text('provider_session_id'),
  resumeCursor: jsonOrNull('resume_cursor'),
  usage: json('usage'),
  backgroundTasks: json('background_tasks'),
  forkedFrom,
  continuedFrom: fixed(jsonOrNull('continued_from')),
  worktree: jsonOrNull('worktree'),
  archivedAt: intOrNull('archived_at'),
  createdAt: fixed(int('created_at')),
  updatedAt: int('updated_at'),
  lastActivityAt: int('last_activity_at'),
});

export const turnMapping = tableMapping<records.TurnRecord>('turns', ['session_id', 'id'], {
  sessionId: fixed(text('session_id')),
  id: fixed(text('id')),
  ordinal: fixed(int('ordinal')),
  kind: fixed(text('kind')),
  status: text('status'),
  // A queued prompt's text can be edited until it starts (its input blocks cannot).
  prompt: textOrNull('prompt'),
  input: fixed(json('input')),
  clientMessageId: fixed(textOrNull('client_message_id')),
  paused: bool('paused'),
  providerTurnId: textOrNull('provider_turn_id'),
  providerSessionId: textOrNull('provider_session_id'),
  checkpointMessageId: textOrNull('checkpoint_message_id'),
  stopReason: textOrNull('stop_reason'),
  error: jsonOrNull('error'),
  cancelDisposition: textOrNull('cancel_disposition'),
  usage: jsonOrNull('usage'),
  createdAt: fixed(int('created_at')),
  startedAt: intOrNull('started_at'),
  endedAt: intOrNull('ended_at'),
});

export const messageMapping = tableMapping<records.MessageRecord>('messages', ['session_id', 'id'], {
  sessionId: fixed(text('session_id')),
  id: fixed(text('id')),
  turnId: fixed(text('turn_id')),
  position: fixed(int('position')),
  role: fixed(text('role')),
  status: text('status'),
  content: json('content'),
  noticeKind: fixed(textOrNull('notice_kind')),
  steer: fixed(bool('steer')),
  clientMessageId: fixed(textOrNull('client_message_id')),
  toolUseId: fixed(textOrNull('tool_use_id')),
  sourceMessageId: fixed(textOrNull('source_message_id')),
  createdAt: fixed(int('created_at')),
  updatedAt: int('updated_at'),
});

export const interactionMapping = tableMapping<records.InteractionRecord>(
  'interactions',
  ['session_id', 'request_id'],
  {
    session_id: fixed(text('session_id')),
    requestId: fixed(text('request_id')),
    turnId: fixed(text('turn_id')),
    kind: fixed(text('kind')),
    toolName: fixed(text('tool_name')),
    tool_use_id: fixed(text('tool_use_id')),
    input: fixed(json('input')),
    options: fixed(json('options')),
    agentId: fixed(textOrNull('agent_id')),
    parentToolUseId: fixed(textOrNull('parent_tool_use_id')),
    status: text('status'),
    answer: jsonOrNull('answer'),
    resolution: textOrNull('resolution'),
    createdAt: fixed(int('created_at')),
    resolvedAt: intOrNull('resolved_at'),
  },
);

export const taskMapping = tableMapping<records.TaskRecord>('tasks', ['id'], {
  id: fixed(text('id')),
  session_id: fixed(text('session_id')),
  title: text('title'),
  status: text('status'),
  description: textOrNull('description'),
  sort_order: int('sort_order'),
  source: fixed(text('source')),
  created_at: fixed(int('created_at')),
  updated_at: int('updated_at'),
});

export const attachmentMapping = tableMapping<records.AttachmentRecord>('attachments', ['id'], {
  id: fixed(text('id')),
  sessionId: fixed(text('session_id')),
  turnId: fixed(textOrNull('turn_id')),
  mediaType: fixed(text('media_type')),
  bytes: fixed(bytes('bytes')),
  createdAt: fixed(int('created_at')),
});

/** The history's index (`history/`): a row per transcript file, put whole. */
export const historyTranscriptMapping = tableMapping<HistoryTranscriptRecord>('history_transcripts', ['path'], {
  path: fixed(text('path')),
  claudeSessionId: text('claude_session_id'),
  cwd: textOrNull('cwd'),
  summary: textOrNull('summary'),
  firstPrompt: textOrNull('first_prompt'),
  customTitle: textOrNull('custom_title'),
  gitBranch: textOrNull('git_branch'),
  createdAt: intOrNull('created_at'),
  mtimeMs: int('mtime_ms'),
  size: int('size'),
  messageCount: int('message_count'),
  indexedAt: int('indexed_at'),
});

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
