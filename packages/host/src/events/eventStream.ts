/**
 * A live, gapless view of an event log: first every stored event after `afterSeq`, then each new one
 * as it is committed, in `seq` order, never twice. A consumer that falls too far behind is cut off
 * (`ended` resolves with `slow_consumer`) and reconnects with its last seq; others are never delayed.
 */
export interface EventStream<E> extends AsyncIterable<E> {
  /** Why the stream ended: the consumer closed it, it fell behind, or the host is shutting down. */
  readonly ended: Promise<'closed' | 'slow_consumer' | 'shutdown'>;
  close(): void;
}
