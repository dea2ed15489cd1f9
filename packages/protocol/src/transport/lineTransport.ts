export type LineHandlers = {
  /** One line without its terminator (`\n` or `\r\n`); may be blank. */
  onLine(line: string): void;
  /** A line longer than the limit was discarded; reading continues with the next line. */
  onOversizedLine?(bytes: number): void;
  /** The peer is gone, a stream failed or the transport was closed; called once, after the last `onLine`. */
  onClose(end: LineTransportEnd): void;
};

/** How a line transport came to close. */
export type LineTransportEnd =
  /** `close()` was called on this end. */
  | { readonly kind: 'closed' }
  /** The peer ended its output, e.g. a sidecar that exited or a host that closed the sidecar's stdin. */
  | { readonly kind: 'input_ended' }
  /**
   * A stream failed: writing to a peer that no longer reads (`EPIPE`), or a read error. Whatever was sent
   * and not yet written is lost; the transport reads nothing more.
   */
  | { readonly kind: 'failed'; readonly stream: 'input' | 'output'; readonly error: Error };

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
