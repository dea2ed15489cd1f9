import type { HookCallbackMatcher, SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeQuery, QueryParams } from '@outrigger/claude-sdk-sidecar';
import type { SdkFixtureEntry } from '@outrigger/claude-sdk-sidecar/bench';

/**
 * A stand-in for the SDK `Query` that answers every prompt with a captured Claude Code turn, the way the
 * real one would: the prompt echo carrying the prompt's uuid, the turn's messages, its PostToolUse hook
 * calls in place, and the result. `nextTurn` is asked once per prompt, before anything is handed over, and
 * must return fresh ids each time (see `ReplayableTurn`). `onHandOver` fires right before each message or
 * hook call reaches the runtime, so a sink can time what the sidecar does with it.
 */
export class ScriptedQuery implements ClaudeQuery {
  readonly #prompts: AsyncIterable<SDKUserMessage>;
  readonly #hooks: HookCallbackMatcher[];
  readonly #nextTurn: () => readonly SdkFixtureEntry[];
  readonly #onHandOver: () => void;
  readonly #abort = new AbortController();

  constructor(params: QueryParams, nextTurn: () => readonly SdkFixtureEntry[], onHandOver: () => void) {
    this.#prompts = params.prompt;
    this.#hooks = params.options.hooks?.PostToolUse ?? [];
    this.#nextTurn = nextTurn;
    this.#onHandOver = onHandOver;
  }

  async initializationResult(): Promise<{ models: [] }> {
    return { models: [] };
  }

  async interrupt(): Promise<void> {}

  close(): void {
    this.#abort.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKMessage> {
    for await (const prompt of this.#prompts) {
      if (this.#abort.signal.aborted) return;
      for (const entry of this.#nextTurn()) {
        this.#onHandOver();
        if ('hook' in entry) {
          for (const matcher of this.#hooks) {
            for (const hook of matcher.hooks) await hook(entry.input, entry.toolUseId, { signal: this.#abort.signal });
          }
        } else {
          yield isPromptEcho(entry.message)
            ? { ...entry.message, uuid: prompt.uuid, message: prompt.message }
            : entry.message;
        }
      }
    }
  }
}

/** The captured echo of the turn's own prompt: a root user message with text, not a tool_result carrier. */
function isPromptEcho(message: SDKMessage): message is SDKUserMessage {
  if (message.type !== 'user' || message.parent_tool_use_id !== null) return false;
  const content = message.message.content;
  return typeof content === 'string' || content.every((block) => block.type !== 'tool_result');
}
