import type { SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';

/**
 * The streaming prompt fed to one SDK `query()`: user messages are pushed as turns are dispatched and the
 * iterable ends when the queue is closed (Claude Code then finishes the running turn and exits).
 */
export class PromptQueue implements AsyncIterable<SDKUserMessage> {
  #buffered: SDKUserMessage[] = [];
  #waiting: ((result: IteratorResult<SDKUserMessage>) => void) | undefined;
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  /** Returns false when the queue is already closed and the message was not accepted. */
  push(message: SDKUserMessage): boolean {
    if (this.#closed) return false;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting({ done: false, value: message });
    } else {
      this.#buffered.push(message);
    }
    return true;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffered = [];
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    return {
      next: () => {
        const message = this.#buffered.shift();
        if (message) return Promise.resolve({ done: false, value: message });
        if (this.#closed) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve) => {
          this.#waiting = resolve;
        });
      },
      return: () => {
        this.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
