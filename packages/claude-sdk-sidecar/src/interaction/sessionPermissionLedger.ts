import type { PermissionUpdate } from '@anthropic-ai/claude-agent-sdk';
import { canonicalJson } from './canonicalJson.ts';

const SESSION_PERMISSION_LEDGER_CAPACITY = 256;

const limits = { maxDepth: 32, maxBytes: 64 * 1024 } as const;

/** One remembered grant: either a session-scoped permission update, or one exact request and what it granted. */
type Entry =
  | { readonly kind: 'update'; readonly update: PermissionUpdate }
  | { readonly kind: 'request'; readonly grant: PermissionUpdate[] };

/**
 * The "Allow for session" grants of one agent session. Claude Code forgets session-scoped permission
 * updates when its process ends, so a new Query generation would ask again; and it cannot express every
 * grant as a rule at all (a compound Bash command with a redirection gets no suggestion), so even the same
 * Query would ask again. The ledger lives on the session and remembers two things:
 *
 * - the exact request the user allowed (tool name and canonical input): an identical request is allowed
 *   without asking, and its grant re-applied;
 * - the session-scoped updates of that grant: a request whose suggestions are all remembered is allowed.
 *
 * Only `destination: 'session'` updates are ever kept. Everything is compared by canonical (key-sorted)
 * JSON; anything deeper than 32 levels, larger than 64 KiB, cyclic or not plain data is never remembered
 * and never matches. At most 256 entries are kept, least recently used first out.
 */
export class SessionPermissionLedger {
  /** Canonical key → entry, in least-recently-used order. */
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;

  constructor(options: { readonly capacity?: number } = {}) {
    this.#capacity = options.capacity ?? SESSION_PERMISSION_LEDGER_CAPACITY;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Remembers a granted set if every update in it is session-scoped plain data. Returns whether it did. */
  remember(updates: readonly PermissionUpdate[]): boolean {
    const keys = sessionKeys(updates);
    if (!keys) return false;
    keys.forEach((key, index) => {
      this.#store(key, { kind: 'update', update: structuredClone(updates[index] as PermissionUpdate) });
    });
    return true;
  }

  /**
   * Remembers that the user allowed exactly this request for the session, with the session-scoped `grant`
   * it came with (possibly none). Returns false when the request cannot be keyed (too large, cyclic, …) or
   * the grant is not session-scoped.
   */
  rememberRequest(toolName: string, input: Record<string, unknown>, grant: readonly PermissionUpdate[]): boolean {
    const key = requestKey(toolName, input);
    if (key === undefined || (grant.length > 0 && !sessionKeys(grant))) return false;
    this.#store(key, { kind: 'request', grant: structuredClone([...grant]) });
    return true;
  }

  /** The grant to re-apply when exactly this request was allowed for the session; undefined otherwise. */
  matchRequest(toolName: string, input: Record<string, unknown>): PermissionUpdate[] | undefined {
    const key = requestKey(toolName, input);
    const entry = key === undefined ? undefined : this.#touch(key);
    return entry?.kind === 'request' ? structuredClone(entry.grant) : undefined;
  }

  /**
   * The remembered updates to re-apply when every one of `updates` is session-scoped and remembered;
   * undefined otherwise (also for an empty set: nothing granted means nothing to replay).
   */
  match(updates: readonly PermissionUpdate[] | undefined): PermissionUpdate[] | undefined {
    const keys = updates && sessionKeys(updates);
    if (!keys?.every((key) => this.#entries.get(key)?.kind === 'update')) return undefined;
    return keys.map((key) => {
      const entry = this.#touch(key) as Extract<Entry, { kind: 'update' }>;
      return structuredClone(entry.update);
    });
  }

  #touch(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  #store(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}

function requestKey(toolName: string, input: Record<string, unknown>): string | undefined {
  const key = canonicalJson({ toolName, input }, limits);
  return key === undefined ? undefined : `request:${key}`;
}

function sessionKeys(updates: readonly PermissionUpdate[]): string[] | undefined {
  if (updates.length === 0) return undefined;
  const keys: string[] = [];
  for (const update of updates) {
    if (typeof update !== 'object' || update === null || update.destination !== 'session') return undefined;
    const key = canonicalJson(update, limits);
    if (key === undefined) return undefined;
    keys.push(`update:${key}`);
  }
  return keys;
}
