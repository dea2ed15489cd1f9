import { createReadStream } from 'node:fs';

/*
 * The light raw pass over a Claude Code transcript (JSONL) that the SDK's reader does not make for us: it
 * counts the lines that are not JSON and the entries of kinds this reader does not know, records the Claude
 * Code versions that wrote the file, and keeps what `getSessionMessages` strips from its messages (a tool
 * result's `toolUseResult`, a system entry's `subtype` and `compactMetadata`, the parent links a compaction
 * cuts). The file is streamed in chunks, so a large transcript never holds the event loop for long.
 */

type Json = Record<string, unknown>;

/**
 * A conversation entry (user, assistant, system; an attachment or an unknown kind only as a link of the
 * chain): the few fields the reader decides on, and the line itself, parsed again only when its body is needed
 * (`rawBody`). Holding parsed entries for a whole large transcript would make every garbage collection of the
 * young generation copy them (tens of milliseconds of a held event loop on a 5 MB file).
 */
export interface RawEntry {
  readonly type: string;
  readonly uuid: string;
  readonly parentUuid?: unknown;
  readonly logicalParentUuid?: unknown;
  readonly subtype?: unknown;
  readonly timestamp?: unknown;
  readonly isSidechain?: unknown;
  readonly isMeta?: unknown;
  readonly isVisibleInTranscriptOnly?: unknown;
  readonly isCompactSummary?: unknown;
  readonly isApiErrorMessage?: unknown;
  /** A prompt queued mid-turn (`queued_command`) keeps its attachment. */
  readonly attachment?: unknown;
  readonly line?: string;
}

const bodies = new WeakMap<RawEntry, Json>();

/** The whole entry (its `message`, its `toolUseResult`), parsed from its line once. */
export function rawBody(entry: RawEntry | undefined): Json | undefined {
  if (entry?.line === undefined) return undefined;
  let body = bodies.get(entry);
  if (body === undefined) {
    body = JSON.parse(entry.line) as Json;
    bodies.set(entry, body);
  }
  return body;
}

/** Entry kinds that carry a `uuid` (they are links of the conversation chain) and that this reader knows. */
const conversationKinds: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);

export interface TranscriptScan {
  readonly lines: number;
  /** Lines that are not JSON (a truncated last write, a damaged file). */
  readonly corruptLines: number;
  /** The file's last line was one of them (it may still be being written). */
  readonly lastLineCorrupt: boolean;
  /** Chain entries (with a `uuid`) of a kind this reader does not know, and JSON lines that are no entry at all. */
  readonly unknownEntries: number;
  /** How many entries each Claude Code version wrote. */
  readonly versions: ReadonlyMap<string, number>;
  /** Conversation entries by uuid; attachments only with their parent links (and a queued prompt's text). */
  readonly entries: ReadonlyMap<string, RawEntry>;
  /** The last user or assistant entry of the main conversation, in file order. */
  readonly lastConversationUuid: string | undefined;
  /** The uuid entry written just before this one: where a chain broken by a damaged line goes on. */
  precedingUuid(uuid: string): string | undefined;
}

const CHUNK_BYTES = 256 * 1024;

export async function scanTranscript(path: string): Promise<TranscriptScan> {
  const scan = new ScanState();
  let pending = '';
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: CHUNK_BYTES });
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = pending + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      scan.line(text.slice(start, end));
      start = end + 1;
    }
    pending = text.slice(start);
  }
  scan.line(pending);
  return scan.result();
}

class ScanState {
  #lines = 0;
  #corrupt = 0;
  #lastCorrupt = false;
  #unknown = 0;
  readonly #versions = new Map<string, number>();
  readonly #entries = new Map<string, RawEntry>();
  /** uuid → the uuid entry before it in the file. */
  readonly #preceding = new Map<string, string>();
  #lastUuid: string | undefined;
  #lastConversation: string | undefined;

  line(line: string): void {
    if (line.trim() === '') return;
    this.#lines += 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#corrupt += 1;
      this.#lastCorrupt = true;
      return;
    }
    this.#lastCorrupt = false;
    if (
      typeof value !== 'object' ||
      value === null ||
      Array.isArray(value) ||
      typeof (value as Json).type !== 'string'
    ) {
      this.#unknown += 1;
      return;
    }
    const entry = value as Json & { type: string };
    if (typeof entry.version === 'string')
      this.#versions.set(entry.version, (this.#versions.get(entry.version) ?? 0) + 1);
    if (typeof entry.uuid !== 'string') return; // metadata (titles, queue operations, costs…): nothing to show
    if (this.#lastUuid !== undefined) this.#preceding.set(entry.uuid, this.#lastUuid);
    this.#lastUuid = entry.uuid;
    if (!conversationKinds.has(entry.type)) {
      this.#unknown += 1;
      // Still a link of the chain: what precedes it is found through it.
      this.#entries.set(entry.uuid, { type: entry.type, uuid: entry.uuid, parentUuid: entry.parentUuid });
      return;
    }
    this.#keep(entry as Json & { type: string; uuid: string }, line);
  }

  #keep(entry: Json & { type: string; uuid: string }, line: string): void {
    const link = { type: entry.type, uuid: entry.uuid, parentUuid: entry.parentUuid, timestamp: entry.timestamp };
    if (entry.type === 'attachment' || entry.type === 'progress') {
      // Only a link of the chain; a prompt queued mid-turn also keeps its text.
      const attachment = entry.attachment as Json | undefined;
      const queued = attachment?.type === 'queued_command' ? { attachment } : {};
      this.#entries.set(entry.uuid, { ...link, isSidechain: entry.isSidechain, ...queued });
      return;
    }
    this.#entries.set(entry.uuid, {
      ...link,
      logicalParentUuid: entry.logicalParentUuid,
      subtype: entry.subtype,
      isSidechain: entry.isSidechain,
      isMeta: entry.isMeta,
      isVisibleInTranscriptOnly: entry.isVisibleInTranscriptOnly,
      isCompactSummary: entry.isCompactSummary,
      isApiErrorMessage: entry.isApiErrorMessage,
      line,
    });
    if ((entry.type === 'user' || entry.type === 'assistant') && entry.isSidechain !== true) {
      this.#lastConversation = entry.uuid;
    }
  }

  result(): TranscriptScan {
    return {
      lines: this.#lines,
      corruptLines: this.#corrupt,
      lastLineCorrupt: this.#lastCorrupt,
      unknownEntries: this.#unknown,
      versions: this.#versions,
      entries: this.#entries,
      lastConversationUuid: this.#lastConversation,
      precedingUuid: (uuid) => this.#preceding.get(uuid),
    };
  }
}
