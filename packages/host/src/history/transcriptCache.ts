import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ClaudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import type { TranscriptContent } from './claudeHistoryReader.ts';
import { readTranscriptContent, type TranscriptLocation } from './transcriptContent.ts';

/*
 * The last few transcripts read, so that paging through an open one does not read it again. An entry is
 * good while the file and its subagents' files keep their size and modification time (a subagent that runs
 * on in the background writes only its own file); anything else reads it again. Readers of the same
 * unchanged transcript at once share one read.
 */

const DEFAULT_CAPACITY = 4;

interface Cached {
  readonly fingerprint: string;
  readonly content: Promise<TranscriptContent>;
}

export interface TranscriptCacheOptions {
  /** Transcripts kept; default 4. */
  readonly capacity?: number;
  /** The read (tests count calls). */
  readonly read?: (sdk: ClaudeHistorySdk, entry: TranscriptLocation) => Promise<TranscriptContent>;
}

export class TranscriptContentCache {
  readonly #capacity: number;
  readonly #read: (sdk: ClaudeHistorySdk, entry: TranscriptLocation) => Promise<TranscriptContent>;
  /** By path, least recently used first. */
  readonly #entries = new Map<string, Cached>();

  constructor(options: TranscriptCacheOptions = {}) {
    this.#capacity = Math.max(1, options.capacity ?? DEFAULT_CAPACITY);
    this.#read = options.read ?? readTranscriptContent;
  }

  /** The transcript's rows and notes; read again when a file changed. Rejects like `readTranscriptContent`. */
  async content(sdk: ClaudeHistorySdk, entry: TranscriptLocation): Promise<TranscriptContent> {
    const fingerprint = await fingerprintOf(entry);
    const cached = this.#entries.get(entry.path);
    this.#entries.delete(entry.path);
    if (cached !== undefined && cached.fingerprint === fingerprint) {
      this.#entries.set(entry.path, cached);
      return cached.content;
    }
    const content = this.#read(sdk, entry);
    const fresh: Cached = { fingerprint, content };
    this.#entries.set(entry.path, fresh);
    while (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
    // A failed read is not kept: the next one tries again.
    content.catch(() => {
      if (this.#entries.get(entry.path) === fresh) this.#entries.delete(entry.path);
    });
    return content;
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Size and modification time of the transcript and of each of its subagents' transcripts. */
async function fingerprintOf(entry: TranscriptLocation): Promise<string> {
  const file = await stat(entry.path);
  const parts = [`${file.size}:${file.mtimeMs}`];
  const folder = join(dirname(entry.path), entry.claudeSessionId, 'subagents');
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names.filter((each) => each.endsWith('.jsonl')).sort()) {
    const sub = await stat(join(folder, name)).catch(() => undefined);
    if (sub !== undefined) parts.push(`${name}:${sub.size}:${sub.mtimeMs}`);
  }
  return parts.join('|');
}
