import type { SessionMessage } from '@anthropic-ai/claude-agent-sdk';
import { TASK_NOTIFICATION_TAG } from '../shared/sdkMessages.ts';
import { asRecord, contentText } from '../shared/sdkValues.ts';

/** One provider Turn in a transcript: its root user message and the last message it owns. */
export interface TurnBinding {
  providerTurnId: string;
  checkpointMessageId: string;
}

/**
 * The marker Claude Code writes as a user message when a request is interrupted (a cancel, a guide, the
 * stall budget): `[Request interrupted by user]`, `[Request interrupted by user for tool use]`. The SDK's own
 * session reader skips the same texts as "not a prompt". Only a message that is nothing but the marker.
 */
const INTERRUPTION_MARKER = /^\[Request interrupted by user[^\]]*\]$/;

/**
 * A root user message starts a provider Turn. Tool results, delegated-agent traffic, task
 * notifications, interruption markers and messages Claude Code injected itself are part of the Turn they
 * follow: no event names them as a Turn (the original counted the markers as roots).
 */
export function isRootUserMessage(message: SessionMessage): boolean {
  if (message.type !== 'user' || message.parent_tool_use_id) return false;
  const extra = message as SessionMessage & Record<string, unknown>;
  // `isSynthetic` is what older transcripts carry; this SDK reports injected messages as `is_meta`.
  if (extra.isSynthetic === true || extra.is_meta === true) return false;
  if (asRecord(extra.origin)?.kind === 'coordinator') return false;
  const content = contentOf(message);
  if (Array.isArray(content) && content.some((block) => asRecord(block)?.type === 'tool_result')) return false;
  const text = contentText(content);
  return !text.includes(TASK_NOTIFICATION_TAG) && !isInterruptionMarker(content, text);
}

function isInterruptionMarker(content: unknown, text: string): boolean {
  if (Array.isArray(content) && content.some((block) => asRecord(block)?.type !== 'text')) return false;
  return INTERRUPTION_MARKER.test(text.trim());
}

export function rootUserMessages(messages: readonly SessionMessage[]): SessionMessage[] {
  return messages.filter(isRootUserMessage);
}

/**
 * Walks the transcript in order: each root user message opens a binding and every later message with
 * a uuid moves that binding's checkpoint forward, so a Turn ends just before the next root.
 */
export function buildTurnBindings(messages: readonly SessionMessage[]): TurnBinding[] {
  const bindings: TurnBinding[] = [];
  let current: TurnBinding | undefined;
  for (const message of messages) {
    if (!message.uuid) continue;
    if (isRootUserMessage(message)) {
      current = { providerTurnId: message.uuid, checkpointMessageId: message.uuid };
      bindings.push(current);
    } else if (current) {
      current.checkpointMessageId = message.uuid;
    }
  }
  assertDistinctBindings(bindings);
  return bindings;
}

function assertDistinctBindings(bindings: readonly TurnBinding[]): void {
  const turnIds = new Set(bindings.map((binding) => binding.providerTurnId));
  const checkpoints = new Set(bindings.map((binding) => binding.checkpointMessageId));
  if (turnIds.size !== bindings.length || checkpoints.size !== bindings.length) {
    throw new Error('forked Claude transcript contains duplicate bindings');
  }
}

/**
 * The exact text a legacy HMAC proof was computed over: string content as is, or text blocks joined
 * by a blank line. Any non-text block means the message has no pure text and can never match.
 */
export function pureTextOf(message: SessionMessage): string | undefined {
  const content = contentOf(message);
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const block of content) {
    const record = asRecord(block);
    if (record?.type !== 'text' || typeof record.text !== 'string') return undefined;
    texts.push(record.text);
  }
  return texts.join('\n\n');
}

function contentOf(message: SessionMessage): unknown {
  return asRecord(message.message)?.content;
}
