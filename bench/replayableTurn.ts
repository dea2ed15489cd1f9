import { randomUUID } from 'node:crypto';
import type { SdkFixtureEntry } from '@outrigger/claude-sdk-sidecar/bench';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The identifiers collected here are uuids and API ids; anything else would need escaping in the pattern. */
const ID_CHARACTERS = /^[\w-]+$/;

/**
 * A captured Claude Code turn that can be replayed as if it happened again. Real Claude Code never repeats
 * a message uuid, an API message id or a tool_use id (the sidecar drops an assistant message whose uuid it
 * already routed), so every replay gets fresh ones, the same fresh value wherever the capture repeats an id
 * (stream events, tool results, hook calls, `parent_tool_use_id`). Session ids and Claude Code's own task
 * numbers stay as captured.
 *
 * The capture is split once around its ids; a replay joins the pieces with fresh ids and parses the result,
 * so every replay is a new object graph, as the SDK hands over.
 */
export class ReplayableTurn {
  /** The capture's JSON between ids: `pieces[i]`, id `slots[i]`, `pieces[i + 1]`, … */
  readonly #pieces: readonly string[];
  readonly #slots: readonly number[];
  readonly #ids: readonly string[];
  #replays = 0;

  constructor(entries: readonly SdkFixtureEntry[]) {
    const ids = [...collectIds(entries)];
    const index = new Map(ids.map((id, position) => [id, position]));
    const pieces: string[] = [];
    const slots: number[] = [];
    let rest = 0;
    const json = JSON.stringify(entries);
    const quotedIds = ids.length > 0 ? new RegExp(`"(${ids.join('|')})"`, 'g') : /$^/g;
    for (const match of json.matchAll(quotedIds)) {
      pieces.push(json.slice(rest, match.index + 1));
      slots.push(index.get(match[1] as string) as number);
      rest = match.index + match[0].length - 1;
    }
    pieces.push(json.slice(rest));
    this.#ids = ids;
    this.#pieces = pieces;
    this.#slots = slots;
  }

  /** How many distinct ids every replay renews. */
  get renewedIds(): number {
    return this.#ids.length;
  }

  replay(): SdkFixtureEntry[] {
    const replay = ++this.#replays;
    const fresh = this.#ids.map((id) => (UUID.test(id) ? randomUUID() : `${id}_${replay}`));
    let json = this.#pieces[0] as string;
    for (let slot = 0; slot < this.#slots.length; slot++) {
      json += (fresh[this.#slots[slot] as number] as string) + (this.#pieces[slot + 1] as string);
    }
    return JSON.parse(json) as SdkFixtureEntry[];
  }
}

/** Message uuids, API message ids and tool_use ids: the identities Claude Code mints anew for every turn. */
function collectIds(entries: readonly SdkFixtureEntry[]): Set<string> {
  const ids = new Set<string>();
  const add = (id: unknown) => {
    if (typeof id !== 'string' || id === '') return;
    if (!ID_CHARACTERS.test(id)) throw new Error(`unexpected characters in captured id ${JSON.stringify(id)}`);
    ids.add(id);
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (record.type === 'message' || (typeof record.type === 'string' && record.type.endsWith('tool_use'))) {
      add(record.id);
    }
    for (const child of Object.values(record)) visit(child);
  };
  for (const entry of entries) {
    if ('hook' in entry) {
      add(entry.toolUseId);
    } else {
      add(entry.message.uuid);
    }
    visit(entry);
  }
  return ids;
}
