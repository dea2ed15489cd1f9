import type { LineHandlers, LineTransport, LineTransportEnd } from './lineTransport.ts';

/**
 * An in-memory pair for tests: what one side sends, the other receives on a later tick, in
 * order, as through a pipe. Closing either side delivers what is in flight, then closes both: the side
 * that closed with `closed`, its peer with `input_ended`.
 */
export function createLinkedLineTransports(): [LineTransport, LineTransport] {
  const left = new LinkedEnd();
  const right = new LinkedEnd();
  left.peer = right;
  right.peer = left;
  return [left, right];
}

class LinkedEnd implements LineTransport {
  peer: LinkedEnd | undefined;
  #handlers: LineHandlers | undefined;
  #inbox: string[] = [];
  #deliveryScheduled = false;
  #closing = false;
  #end: LineTransportEnd = { kind: 'input_ended' };
  #closed = false;

  start(handlers: LineHandlers): void {
    if (this.#handlers !== undefined) throw new Error('line transport already started');
    this.#handlers = handlers;
    this.#scheduleDelivery();
  }

  send(line: string): void {
    if (this.#closing || this.peer === undefined || this.peer.#closing) return;
    this.peer.#receive(line);
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#end = { kind: 'closed' };
    if (this.peer !== undefined) this.peer.#beginClose();
    this.#beginClose();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  #beginClose(): void {
    this.#closing = true;
    this.#scheduleDelivery();
  }

  #receive(line: string): void {
    this.#inbox.push(line);
    this.#scheduleDelivery();
  }

  #scheduleDelivery(): void {
    if (this.#deliveryScheduled || this.#handlers === undefined) return;
    this.#deliveryScheduled = true;
    setImmediate(() => this.#deliver());
  }

  #deliver(): void {
    this.#deliveryScheduled = false;
    const handlers = this.#handlers;
    if (handlers === undefined || this.#closed) return;
    const lines = this.#inbox;
    this.#inbox = [];
    for (const line of lines) handlers.onLine(line);
    if (this.#closing && this.#inbox.length === 0) {
      this.#closed = true;
      handlers.onClose(this.#end);
    }
  }
}
