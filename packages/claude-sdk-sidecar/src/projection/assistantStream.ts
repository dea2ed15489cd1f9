import type { EmitEvent } from '@outrigger/protocol';

export type SegmentKind = 'assistant' | 'thinking';

/** One text or thinking block of a root assistant message, streamed or not. */
interface Segment {
  readonly kind: SegmentKind;
  readonly messageId: string;
  snapshot: string;
  completed: boolean;
  /** Already matched to a block of a consolidated SDK `assistant` message. */
  consolidated: boolean;
  /** Its content block stopped before a consolidated message completed it: it waits for the message's end. */
  stopped: boolean;
}

/** The streamed blocks of one API message (one `message_start`). */
interface StreamedMessage {
  readonly base: string;
  readonly segments: Segment[];
  /** Open segments by stream content-block index. */
  readonly open: (Segment | undefined)[];
  /** Its `message_delta` (the stop reason) arrived: the API finished the message. */
  delivered: boolean;
}

/** How many API messages' segments stay matchable by later consolidated messages. */
const RECENT_MESSAGES = 8;

/**
 * Assistant and thinking text of the root turn. Stream deltas build live segments; the consolidated
 * SDK `assistant` message (one per content block) completes the matching segment, or, for a block
 * that never streamed, supplies a fallback segment. Each segment completes exactly once.
 *
 * A cut stream: Claude Code closes the blocks of a message whose connection broke (synthetic
 * `content_block_stop` and `message_stop`, no `message_delta`, no consolidated message) and retries the
 * request. A segment whose block stopped is therefore completed only when its message is known to have
 * been delivered (its consolidated message or `message_delta`); if its message ends without that, it was
 * cut, and it ends with `assistant_failed`, so a host never takes the partial for a second answer. An
 * interrupted (`aborted`) consolidated message ends its segment the same way.
 */
export class AssistantStream {
  readonly #emit: EmitEvent;
  #sequence = 0;
  #current: StreamedMessage | undefined;
  readonly #recent = new Map<string, StreamedMessage>();

  constructor(emit: EmitEvent) {
    this.#emit = emit;
  }

  messageStart(apiMessageId: string | undefined, turnId: string | undefined): void {
    this.#endCurrent(turnId);
    const base = apiMessageId ?? turnId ?? 'unknown';
    const message: StreamedMessage = { base, segments: [], open: [], delivered: false };
    this.#current = message;
    if (apiMessageId === undefined) return;
    this.#recent.set(apiMessageId, message);
    if (this.#recent.size > RECENT_MESSAGES) {
      const oldest = this.#recent.keys().next().value;
      if (oldest !== undefined) this.#recent.delete(oldest);
    }
  }

  blockStart(index: number, kind: SegmentKind, initialText: string, turnId: string | undefined): void {
    const message = this.#current ?? this.#startAnonymousMessage(turnId);
    const segment = this.#segment(kind, message.base, 'live');
    message.segments.push(segment);
    message.open[index] = segment;
    if (initialText !== '') this.#appendDelta(segment, initialText, turnId);
  }

  delta(index: number, kind: SegmentKind, text: string, turnId: string | undefined): void {
    if (text === '') return;
    let segment = this.#current?.open[index];
    if (segment === undefined || segment.kind !== kind) {
      // A delta without its block start (a dropped frame): open the segment here.
      this.blockStart(index, kind, '', turnId);
      segment = this.#current?.open[index];
      if (segment === undefined) return;
    }
    this.#appendDelta(segment, text, turnId);
  }

  /** Returns false when the index is not an open text or thinking block (it may be a tool's). */
  blockStop(index: number, turnId: string | undefined): boolean {
    const message = this.#current;
    const segment = message?.open[index];
    if (message === undefined || segment === undefined) return false;
    message.open[index] = undefined;
    if (segment.completed) return true;
    if (message.delivered) this.#complete(segment, segment.snapshot, false, turnId);
    else segment.stopped = true;
    return true;
  }

  /** `message_delta`: the API delivered the whole message, so every stopped segment of it is complete. */
  messageDelivered(turnId: string | undefined): void {
    const message = this.#current;
    if (message === undefined) return;
    message.delivered = true;
    for (const segment of message.segments) {
      if (segment.stopped && !segment.completed) this.#complete(segment, segment.snapshot, false, turnId);
    }
  }

  /** `message_stop`: a message that ends undelivered was cut; its unfinished segments fail. */
  messageStop(turnId: string | undefined): void {
    this.#endCurrent(turnId);
  }

  /** A text or thinking block of a consolidated `assistant` message. */
  completeBlock(
    apiMessageId: string | undefined,
    kind: SegmentKind,
    text: string,
    failed: boolean,
    turnId: string | undefined,
  ): void {
    const message = apiMessageId === undefined ? undefined : this.#recent.get(apiMessageId);
    const segment = message === undefined ? undefined : firstUnconsolidated(message.segments, kind);
    if (segment === undefined) {
      if (text !== '')
        this.#complete(this.#segment(kind, apiMessageId ?? turnId ?? 'unknown', 'fallback'), text, failed, turnId);
      return;
    }
    segment.consolidated = true;
    if (segment.completed) return;
    if (text.length > segment.snapshot.length && text.startsWith(segment.snapshot)) {
      this.#appendDelta(segment, text.slice(segment.snapshot.length), turnId);
    }
    this.#complete(segment, text === '' ? segment.snapshot : text, failed, turnId);
  }

  reset(): void {
    this.#current = undefined;
    this.#recent.clear();
  }

  /** Ends the current message: what of it is still unfinished was cut off (failed) unless it was delivered. */
  #endCurrent(turnId: string | undefined): void {
    const message = this.#current;
    if (message === undefined) return;
    message.open.length = 0;
    for (const segment of message.segments) {
      if (!segment.completed && (segment.stopped || segment.snapshot !== '')) {
        this.#complete(segment, segment.snapshot, !message.delivered, turnId);
      }
    }
  }

  #startAnonymousMessage(turnId: string | undefined): StreamedMessage {
    const message: StreamedMessage = { base: turnId ?? 'unknown', segments: [], open: [], delivered: false };
    this.#current = message;
    return message;
  }

  #segment(kind: SegmentKind, base: string, source: 'live' | 'fallback'): Segment {
    const messageId = `claude-sdk:${kind}:${base}:${source}:${this.#sequence++}`;
    return { kind, messageId, snapshot: '', completed: false, consolidated: source === 'fallback', stopped: false };
  }

  #appendDelta(segment: Segment, text: string, turnId: string | undefined): void {
    segment.snapshot += text;
    if (turnId === undefined) return;
    this.#emit(segment.kind === 'assistant' ? 'assistant_delta' : 'thinking_delta', {
      turnId,
      messageId: segment.messageId,
      content: text,
      snapshot: segment.snapshot,
    });
  }

  #complete(segment: Segment, content: string, failed: boolean, turnId: string | undefined): void {
    segment.completed = true;
    if (content === '' || turnId === undefined) return;
    const type =
      segment.kind === 'thinking' ? 'thinking_completed' : failed ? 'assistant_failed' : 'assistant_completed';
    this.#emit(type, { turnId, messageId: segment.messageId, content });
  }
}

function firstUnconsolidated(segments: Segment[], kind: SegmentKind): Segment | undefined {
  for (const segment of segments) {
    if (segment.kind === kind && !segment.consolidated) return segment;
  }
  return undefined;
}
