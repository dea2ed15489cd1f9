import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { asRecord, isRootMessage } from '../shared/sdkMessages.ts';

const FINAL_STOP_REASONS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'refusal']);

/**
 * Decision 6: once a Turn's final answer has streamed, its result must follow. The watchdog arms when the
 * model finishes a response that asks for no tool, re-arms on every later message of the Query while the
 * Turn is active (hooks and bookkeeping may legitimately run), disarms when the model starts another
 * response, and fires when the Query then stays silent for `timeoutMs`.
 */
export class ResultWatchdog {
  readonly #timeoutMs: number;
  readonly #onExpired: () => void;
  #timer: NodeJS.Timeout | undefined;
  #armed = false;

  constructor(timeoutMs: number, onExpired: () => void) {
    this.#timeoutMs = timeoutMs;
    this.#onExpired = onExpired;
  }

  observe(message: SDKMessage): void {
    const stopReason = finalAnswerStopReason(message);
    if (stopReason === 'new_response') {
      this.disarm();
      return;
    }
    if (stopReason !== undefined) this.#armed = true;
    if (this.#armed) this.#restart();
  }

  disarm(): void {
    this.#armed = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #restart(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#armed = false;
      this.#timer = undefined;
      this.#onExpired();
    }, this.#timeoutMs);
    this.#timer.unref();
  }
}

/** A final stop reason when the root model just ended a tool-free response, 'new_response' when it starts one. */
function finalAnswerStopReason(message: SDKMessage): string | undefined {
  // A sub-agent finishing its own answer says nothing about the root result.
  if (!isRootMessage(message)) return undefined;
  if (message.type === 'stream_event') {
    const event = asRecord(message.event);
    if (event?.type === 'message_start') return 'new_response';
    if (event?.type !== 'message_delta') return undefined;
    const stopReason = asRecord(event.delta)?.stop_reason;
    return typeof stopReason === 'string' && FINAL_STOP_REASONS.has(stopReason) ? stopReason : undefined;
  }
  if (message.type === 'assistant') {
    const stopReason = asRecord(message.message)?.stop_reason;
    return typeof stopReason === 'string' && FINAL_STOP_REASONS.has(stopReason) ? stopReason : undefined;
  }
  return undefined;
}
