import { DEFAULT_MAX_LINE_BYTES } from './lineTransport.ts';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export type LineSplitterOptions = {
  onLine(line: string): void;
  onOversizedLine?(bytes: number): void;
  /** Bytes a line may have before its `\n` (a `\r` counts); longer lines are discarded. */
  maxLineBytes?: number;
};

/**
 * Turns a byte stream into lines. Bytes are kept until the line ends and decoded once, so a
 * UTF-8 character split across chunks decodes intact. A line that outgrows the limit is dropped
 * as soon as it does, and its remaining bytes are only counted, never buffered.
 */
export class LineSplitter {
  readonly #onLine: (line: string) => void;
  readonly #onOversizedLine: ((bytes: number) => void) | undefined;
  readonly #maxLineBytes: number;
  #parts: Buffer[] = [];
  #pendingBytes = 0;
  #discarding = false;

  constructor(options: LineSplitterOptions) {
    this.#onLine = options.onLine;
    this.#onOversizedLine = options.onOversizedLine;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  push(chunk: Uint8Array | string): void {
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      this.#append(bytes.subarray(start, end));
      if (newline === -1) return;
      this.#finishLine();
      start = newline + 1;
    }
  }

  /** The stream ended: a final line without a newline still counts. */
  end(): void {
    if (this.#discarding || this.#pendingBytes > 0) this.#finishLine();
  }

  #append(segment: Buffer): void {
    if (segment.length === 0) return;
    this.#pendingBytes += segment.length;
    if (this.#discarding) return;
    if (this.#pendingBytes > this.#maxLineBytes) {
      this.#discarding = true;
      this.#parts = [];
      return;
    }
    this.#parts.push(segment);
  }

  #finishLine(): void {
    const bytes = this.#pendingBytes;
    const discarded = this.#discarding;
    const parts = this.#parts;
    this.#parts = [];
    this.#pendingBytes = 0;
    this.#discarding = false;
    if (discarded) {
      this.#onOversizedLine?.(bytes);
      return;
    }
    const line = parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes);
    const length = line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length;
    this.#onLine(line.toString('utf8', 0, length));
  }
}
