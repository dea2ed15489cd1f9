import type { WriteUnit } from './hostStore.ts';

/**
 * Units that will be committed as ONE transaction (`commitMany`), with each row written once: a session,
 * turn, message or interaction that several units put is put by the first of them, with the last value,
 * and left out of the others. Nothing reads those rows between the units of a transaction, so what is
 * committed is the same; a row stays where it was first put, after whatever it refers to. A streaming
 * text row that a batch of deltas rewrites is written once per batch instead of once per delta.
 *
 * A transcript copy (a fork) reads rows inside the transaction: units with one are returned as they are.
 */
export function coalescePuts(units: readonly WriteUnit[]): readonly WriteUnit[] {
  if (units.length < 2 || units.some((unit) => unit.copyTranscript !== undefined)) return units;
  const sessions = new RowPuts(
    units,
    (unit) => unit.sessions,
    (row) => row.id,
  );
  const turns = new RowPuts(
    units,
    (unit) => unit.turns,
    (row) => `${row.sessionId}\n${row.id}`,
  );
  const messages = new RowPuts(
    units,
    (unit) => unit.messages,
    (row) => `${row.sessionId}\n${row.id}`,
  );
  const interactions = new RowPuts(
    units,
    (unit) => unit.interactions,
    (row) => `${row.session_id}\n${row.requestId}`,
  );
  return units.map((unit) => {
    const out: { -readonly [K in keyof WriteUnit]: WriteUnit[K] } = { ...unit };
    out.sessions = sessions.take(unit.sessions);
    out.turns = turns.take(unit.turns);
    out.messages = messages.take(unit.messages);
    out.interactions = interactions.take(unit.interactions);
    for (const key of ['sessions', 'turns', 'messages', 'interactions'] as const) {
      if (out[key] === undefined) delete out[key];
    }
    return out;
  });
}

/** The rows of one table across the units: the last value of each, handed out where it is first put. */
class RowPuts<R> {
  readonly #latest = new Map<string, R>();
  readonly #key: (row: R) => string;

  constructor(
    units: readonly WriteUnit[],
    rowsOf: (unit: WriteUnit) => readonly R[] | undefined,
    key: (row: R) => string,
  ) {
    this.#key = key;
    for (const unit of units) for (const row of rowsOf(unit) ?? []) this.#latest.set(key(row), row);
  }

  /** A unit's rows that are put there (not put by an earlier unit), each with its last value. */
  take(rows: readonly R[] | undefined): R[] | undefined {
    if (rows === undefined) return undefined;
    const kept: R[] = [];
    for (const row of rows) {
      const key = this.#key(row);
      const value = this.#latest.get(key);
      if (value === undefined) continue;
      kept.push(value);
      this.#latest.delete(key);
    }
    return kept.length > 0 ? kept : undefined;
  }
}
