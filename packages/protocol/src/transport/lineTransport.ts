export type LineHandlers = {
  /** One line without its terminator (`\n` or `\r\n`); may be blank. */
  onLine(line: string): void;
  /** A line longer than the limit was discarded; reading continues with the next line. */
  onOversizedLine?(bytes: number): void;
  /** The peer is gone or the transport was closed; called once, after the last `onLine`. */
  onClose(): void;
};

/**
 * A bidirectional stream of text lines. It moves lines, not messages, so the receiver can
 * report a malformed line itself (for example as a correlated protocol error).
 */
export interface LineTransport {
  start(handlers: LineHandlers): void;
  /** Queues one line; the transport appends the newline. Lines sent after close are dropped. */
  send(line: string): void;
  close(): Promise<void>;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
