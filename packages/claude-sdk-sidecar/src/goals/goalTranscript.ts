import { realpathSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { claudeConfigDir } from '../config/claudeConfigDir.ts';
import { asRecord } from '../shared/sdkValues.ts';

/** Claude Code caps a project directory name at this many characters, then adds a hash. */
const PROJECT_KEY_MAX_LENGTH = 200;
const READ_CHUNK_BYTES = 1 << 20;
/** Goal verdict rows are a few hundred bytes; a longer unfinished line is not one. */
const MAX_GOAL_ROW_BYTES = 1 << 20;
const NEWLINE = 0x0a;
/** Cheap pre-filter: a line that does not contain this cannot be a goal_status row. */
const GOAL_STATUS_MARKER = '"goal_status"';

/**
 * The directory name Claude Code files a project's transcripts under: every character that is not an
 * ASCII letter or digit becomes `-`; a name longer than 200 characters is cut there and suffixed with
 * `-` and the base-36 absolute value of the path's 32-bit Java-style string hash.
 */
export function projectKey(projectPath: string): string {
  const key = projectPath.replace(/[^a-zA-Z0-9]/g, '-');
  if (key.length <= PROJECT_KEY_MAX_LENGTH) return key;
  return `${key.slice(0, PROJECT_KEY_MAX_LENGTH)}-${Math.abs(javaStringHash(projectPath)).toString(36)}`;
}

function javaStringHash(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index++) hash = (hash * 31 + text.charCodeAt(index)) | 0;
  return hash;
}

export interface TranscriptLocation {
  /** `CLAUDE_CONFIG_DIR` of the Query env; empty or undefined means `~/.claude`. */
  readonly configDir: string | undefined;
  readonly cwd: string;
  readonly sessionId: string;
}

/** Where Claude Code appends the session's JSONL transcript: `<config>/projects/<projectKey(realpath cwd)>/<id>.jsonl`. */
export function sessionTranscriptPath(location: TranscriptLocation): string {
  return join(
    claudeConfigDir(location.configDir),
    'projects',
    projectKey(realPath(location.cwd)),
    `${location.sessionId}.jsonl`,
  );
}

function realPath(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return resolve(cwd);
  }
}

/**
 * Follows a session transcript for `goal_status` attachment rows, which the SDK stream does not carry.
 * Only rows appended after the tail began following the file count: history from before (a restored
 * session) was reported by an earlier sidecar. Reading happens only on `drain()`, so the caller decides
 * when (before a root result settles, at idle).
 */
export class GoalTranscriptTail {
  #path: string | undefined;
  #offset = 0;
  /** Bytes after the last newline: a row Claude Code is still writing. */
  #partial: Buffer = Buffer.alloc(0);
  #skippingLine = false;
  #draining: Promise<unknown[]> = Promise.resolve([]);

  /** Starts following this file from its current end; following the same path again changes nothing. */
  follow(path: string): void {
    if (path === this.#path) return;
    this.#path = path;
    this.#restartAt(fileSize(path));
  }

  stop(): void {
    this.#path = undefined;
    this.#restartAt(0);
  }

  /** The goal_status rows appended since the last drain, in file order. Concurrent drains read each row once. */
  drain(): Promise<unknown[]> {
    const next = this.#draining.then(() => this.#read());
    this.#draining = next.catch(() => []);
    return next;
  }

  async #read(): Promise<unknown[]> {
    const path = this.#path;
    if (path === undefined) return [];
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(path, 'r');
    } catch {
      return [];
    }
    const rows: unknown[] = [];
    try {
      const size = (await file.stat()).size;
      if (size < this.#offset) {
        // Replaced underneath us: what is there now was not appended while we watched.
        this.#restartAt(size);
      }
      const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      while (this.#offset < size) {
        const { bytesRead } = await file.read(chunk, 0, Math.min(chunk.length, size - this.#offset), this.#offset);
        // follow() may have moved to another file meanwhile; the offset is that file's now.
        if (bytesRead === 0 || path !== this.#path) break;
        this.#offset += bytesRead;
        this.#collect(chunk.subarray(0, bytesRead), rows);
      }
    } finally {
      await file.close();
    }
    return rows;
  }

  #restartAt(offset: number): void {
    this.#offset = offset;
    this.#partial = Buffer.alloc(0);
    this.#skippingLine = false;
  }

  #collect(bytes: Buffer, rows: unknown[]): void {
    let data = bytes;
    if (this.#skippingLine) {
      const end = data.indexOf(NEWLINE);
      if (end < 0) return;
      this.#skippingLine = false;
      data = data.subarray(end + 1);
    }
    if (this.#partial.length > 0) data = Buffer.concat([this.#partial, data]);
    let newline = data.indexOf(NEWLINE);
    while (newline >= 0) {
      const row = goalStatusRow(data.toString('utf8', 0, newline));
      if (row !== undefined) rows.push(row);
      data = data.subarray(newline + 1);
      newline = data.indexOf(NEWLINE);
    }
    // A row this long is a tool result, never a goal verdict: skip it rather than buffer it.
    this.#skippingLine = data.length > MAX_GOAL_ROW_BYTES;
    this.#partial = this.#skippingLine ? Buffer.alloc(0) : Buffer.from(data);
  }
}

function goalStatusRow(line: string): unknown {
  if (!line.includes(GOAL_STATUS_MARKER)) return undefined;
  try {
    const row: unknown = JSON.parse(line);
    const record = asRecord(row);
    return record?.type === 'attachment' && asRecord(record.attachment)?.type === 'goal_status' ? row : undefined;
  } catch {
    return undefined;
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
