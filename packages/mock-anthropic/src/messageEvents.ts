import { randomBytes } from 'node:crypto';
import type { MessageReply, ReplyUsage, StopReason } from './scenarioSchema.ts';

const defaultChunkSize = 32;

/** One Messages API stream event, sent after waiting `delayMs`. */
export interface MessageStreamEvent {
  event: string;
  data: Record<string, unknown>;
  delayMs: number;
}

export interface MessageContext {
  model: string;
  /** Estimated prompt size, used when the reply does not script its usage. */
  inputTokens: number;
}

type ContentBlock =
  | { type: 'text'; text: string; chunks: string[]; chunkDelayMs: number }
  | { type: 'thinking'; thinking: string; signature: string; chunks: string[]; chunkDelayMs: number }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** A scripted reply made concrete: ids chosen, text chunked, usage and stop reason settled. */
export interface ScriptedMessage {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: StopReason;
  usage: ReplyUsage;
}

export function scriptMessage(reply: MessageReply, context: MessageContext): ScriptedMessage {
  const content = reply.content.map((block): ContentBlock => {
    if (block.type === 'text') {
      return {
        type: 'text',
        text: block.text,
        chunks: chunk(block.text, block.chunkSize),
        chunkDelayMs: block.chunkDelayMs ?? 0,
      };
    }
    if (block.type === 'thinking') {
      return {
        type: 'thinking',
        thinking: block.thinking,
        signature: block.signature ?? `mock-signature-${randomId(16)}`,
        chunks: chunk(block.thinking, block.chunkSize),
        chunkDelayMs: block.chunkDelayMs ?? 0,
      };
    }
    return { type: 'tool_use', id: block.id ?? `toolu_mock_${randomId(20)}`, name: block.name, input: block.input };
  });
  const hasToolUse = content.some((block) => block.type === 'tool_use');
  return {
    id: `msg_mock_${randomId(20)}`,
    model: context.model,
    content,
    stopReason: reply.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
    usage: reply.usage ?? { input_tokens: context.inputTokens, output_tokens: estimateOutputTokens(content) },
  };
}

/** The SSE event sequence Claude Code expects: message_start, each block, message_delta, message_stop. */
export function messageStreamEvents(message: ScriptedMessage): MessageStreamEvent[] {
  const events: MessageStreamEvent[] = [];
  const push = (event: string, data: Record<string, unknown>, delayMs = 0) =>
    events.push({ event, data: { type: event, ...data }, delayMs });

  push('message_start', {
    message: {
      id: message.id,
      type: 'message',
      role: 'assistant',
      model: message.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: message.usage.input_tokens,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  });
  for (const [index, block] of message.content.entries()) {
    switch (block.type) {
      case 'text':
        push('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const [n, text] of block.chunks.entries()) {
          push('content_block_delta', { index, delta: { type: 'text_delta', text } }, n === 0 ? 0 : block.chunkDelayMs);
        }
        break;
      case 'thinking':
        push('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        for (const [n, thinking] of block.chunks.entries()) {
          push(
            'content_block_delta',
            { index, delta: { type: 'thinking_delta', thinking } },
            n === 0 ? 0 : block.chunkDelayMs,
          );
        }
        push('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
        break;
      case 'tool_use':
        // Claude Code accepts the whole input as a single partial_json delta after an empty start input.
        push('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        push('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        });
        break;
    }
    push('content_block_stop', { index });
  }
  push('message_delta', {
    delta: { stop_reason: message.stopReason, stop_sequence: null },
    usage: { input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens },
  });
  push('message_stop', {});
  return events;
}

/** The non-streaming (`stream:false`) response body. */
export function messageJson(message: ScriptedMessage): Record<string, unknown> {
  return {
    id: message.id,
    type: 'message',
    role: 'assistant',
    model: message.model,
    content: message.content.map((block) => {
      if (block.type === 'text') return { type: 'text', text: block.text };
      if (block.type === 'thinking') return { type: 'thinking', thinking: block.thinking, signature: block.signature };
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    }),
    stop_reason: message.stopReason,
    stop_sequence: null,
    usage: { ...message.usage, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

/** A rough token count (about four characters per token), enough for plausible usage figures. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function estimateOutputTokens(content: readonly ContentBlock[]): number {
  let text = '';
  for (const block of content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'thinking') text += block.thinking;
    else text += block.name + JSON.stringify(block.input);
  }
  return estimateTokens(text);
}

function chunk(text: string, size = defaultChunkSize): string[] {
  // Split by code points so a chunk boundary never cuts a surrogate pair.
  const codePoints = Array.from(text);
  const chunks: string[] = [];
  for (let i = 0; i < codePoints.length; i += size) chunks.push(codePoints.slice(i, i + size).join(''));
  return chunks;
}

function randomId(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');
}
