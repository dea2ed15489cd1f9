import type { PermissionUpdate } from '@anthropic-ai/claude-agent-sdk';
import { canonicalJson } from './canonicalJson.ts';

const SESSION_PERMISSION_LEDGER_CAPACITY = 256;

const limits = { maxDepth: 32, maxBytes: 64 * 1024 } as const;

/**
 * The "Allow for session" grants of one agent session. Claude Code forgets session-scoped permission
 * updates when its process ends, so a new Query generation would ask again; the ledger lives on the
 * session and lets the sidecar re-apply exactly what the user granted. Only `destination: 'session'`
 * updates are ever kept. Updates are compared by canonical (key-sorted) JSON; anything too deep, too
 * large, cyclic or not plain data is never remembered and never matches.
 */
export class SessionPermissionLedger {
  /** Canonical JSON → update, in least-recently-used order. */
  readonly #entries = new Map<string, PermissionUpdate>();
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
      this.#entries.delete(key);
      this.#entries.set(key, structuredClone(updates[index]));
    });
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return true;
  }

  /**
   * The remembered updates to re-apply when every one of `updates` is session-scoped and remembered;
   * undefined otherwise (also for an empty set: nothing granted means nothing to replay).
   */
  match(updates: readonly PermissionUpdate[] | undefined): PermissionUpdate[] | undefined {
    const keys = updates && sessionKeys(updates);
    if (!keys?.every((key) => this.#entries.has(key))) return undefined;
    return keys.map((key) => {
      const update = this.#entries.get(key)!;
      this.#entries.delete(key);
      this.#entries.set(key, update);
      return structuredClone(update);
    });
  }
}

function sessionKeys(updates: readonly PermissionUpdate[]): string[] | undefined {
  if (updates.length === 0) return undefined;
  const keys: string[] = [];
  for (const update of updates) {
    if (typeof update !== 'object' || update === null || update.destination !== 'session') return undefined;
    const key = canonicalJson(update, limits);
    if (key === undefined) return undefined;
    keys.push(key);
  }
  return keys;
}
