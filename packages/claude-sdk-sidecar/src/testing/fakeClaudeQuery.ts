import type { ModelInfo, Options, PermissionMode, SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeQuery, QueryFactory, QueryParams } from '../runtime/claudeQuery.ts';

/**
 * A scripted stand-in for the SDK `Query` in unit tests: the test pushes the messages Claude Code would
 * stream, sees the prompts the runtime sent, and can end or fail the stream like a dying child.
 */
export class FakeClaudeQuery implements ClaudeQuery {
  readonly options: Options;
  readonly prompts: SDKUserMessage[] = [];
  readonly calls: string[] = [];
  interruptBehavior: 'resolve' | 'reject' | 'hang' = 'resolve';
  /** Installed by `answerWithdrawals`; absent like on a Query that cannot withdraw a queued prompt. */
  cancelAsyncMessage?: (messageUuid: string) => Promise<boolean>;
  #queue: SDKMessage[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #failure: unknown;
  #promptWaiters: (() => void)[] = [];

  constructor(params: QueryParams) {
    this.options = params.options;
    void this.#readPrompts(params.prompt);
  }

  push(...messages: SDKMessage[]): void {
    this.#queue.push(...messages);
    this.#wake?.();
  }

  /** The stream ends on its own (the child exited). */
  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  /** The stream throws (the SDK reports the child's death). */
  fail(error: unknown): void {
    this.#failure = error;
    this.#ended = true;
    this.#wake?.();
  }

  /** Resolves once `count` prompts have been sent. */
  async waitForPrompts(count: number, timeoutMs = 2_000): Promise<SDKUserMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.prompts.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} prompts, got ${this.prompts.length}`);
      await new Promise<void>((resolve) => {
        this.#promptWaiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
    return this.prompts;
  }

  async interrupt(): Promise<void> {
    this.calls.push('interrupt');
    if (this.interruptBehavior === 'reject') throw new Error('interrupt failed');
    if (this.interruptBehavior === 'hang') await new Promise(() => undefined);
  }

  /**
   * Makes the Query withdraw queued prompts as Claude Code would: `true` (dropped), `false` (it had started),
   * an error (the control request failed), `'hang'` (never answered). Each call is recorded.
   */
  answerWithdrawals(answer: boolean | Error | 'hang'): void {
    this.cancelAsyncMessage = async (messageUuid) => {
      this.calls.push(`cancelAsyncMessage:${messageUuid}`);
      if (answer === 'hang') return new Promise<boolean>(() => undefined);
      if (answer instanceof Error) throw answer;
      return answer;
    };
  }

  close(): void {
    this.calls.push('close');
    this.end();
  }

  async initializationResult(): Promise<{ models: ModelInfo[] }> {
    return {
      models: [
        { value: 'default', displayName: 'Default (recommended)', description: 'The default model' },
        { value: 'claude-sonnet-test', displayName: 'Sonnet Test', description: 'A test model' },
      ],
    };
  }

  async setModel(model?: string): Promise<void> {
    this.calls.push(`setModel:${model ?? 'default'}`);
  }

  async setPermissionMode(mode: PermissionMode): Promise<void> {
    this.calls.push(`setPermissionMode:${mode}`);
  }

  async applyFlagSettings(settings: Record<string, unknown>): Promise<void> {
    this.calls.push(`applyFlagSettings:${JSON.stringify(settings)}`);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKMessage> {
    for (;;) {
      const next = this.#queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.#ended) {
        if (this.#failure !== undefined) throw this.#failure;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }

  async #readPrompts(prompt: AsyncIterable<SDKUserMessage>): Promise<void> {
    for await (const message of prompt) {
      this.prompts.push(message);
      for (const wake of this.#promptWaiters.splice(0)) wake();
    }
  }
}

/** A query factory that records every Query it creates. */
export function fakeQueryFactory(): { factory: QueryFactory; queries: FakeClaudeQuery[] } {
  const queries: FakeClaudeQuery[] = [];
  return {
    queries,
    factory: (params) => {
      const query = new FakeClaudeQuery(params);
      queries.push(query);
      return query;
    },
  };
}
