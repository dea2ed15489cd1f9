/*
 * How much of each streamed text or thinking block an editor has been sent. ACP chunks only append, while the
 * host ends a block with its whole text (`final`), which replaces the deltas: only the part the deltas did not
 * carry may still be sent, and nothing twice.
 */

interface Stream {
  /** What the editor has of the block (empty once the block is closed: nothing more is sent for it). */
  sent: string;
  open: boolean;
}

export class TextStreams {
  readonly #streams = new Map<string, Stream>();

  /** A delta of block `messageId` → the text to send (undefined: nothing, the block is closed or the delta empty). */
  delta(messageId: string, delta: string): string | undefined {
    const stream = this.#stream(messageId);
    if (!stream.open || delta === '') return undefined;
    stream.sent += delta;
    return delta;
  }

  /**
   * The block's end with its whole `text` → what is left to send. An interrupted block sends nothing more: it
   * was cut off, and what the editor shows is what there was. A whole text that does not extend what was sent
   * sends nothing either: an editor cannot take a chunk back, and a second copy would read as the answer twice.
   */
  final(messageId: string, text: string | undefined, interrupted: boolean): string | undefined {
    const stream = this.#stream(messageId);
    if (!stream.open) return undefined;
    const sent = stream.sent;
    this.#close(stream);
    if (interrupted || text === undefined || !text.startsWith(sent)) return undefined;
    const rest = text.slice(sent.length);
    return rest === '' ? undefined : rest;
  }

  /** A transcript row's text was sent whole (a replay): a row still streaming goes on with the live deltas. */
  replayed(messageId: string, text: string, streaming: boolean): void {
    const stream = this.#stream(messageId);
    stream.sent = text;
    if (!streaming) this.#close(stream);
  }

  #stream(messageId: string): Stream {
    let stream = this.#streams.get(messageId);
    if (stream === undefined) {
      stream = { sent: '', open: true };
      this.#streams.set(messageId, stream);
    }
    return stream;
  }

  /** Only the closed mark stays: a long session must not keep every answer's text twice. */
  #close(stream: Stream): void {
    stream.open = false;
    stream.sent = '';
  }
}
