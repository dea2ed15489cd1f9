import type { SessionMessage } from '@anthropic-ai/claude-agent-sdk';

/** One provider Turn in a transcript: its root user message and the last message it owns. */
export interface TurnBinding {
  providerTurnId: string;
  checkpointMessageId: string;
}

const TASK_NOTIFICATION_TAG = '<task-notification>';

/**
 * A root user message starts a provider Turn. Tool results, delegated-agent traffic, task
 * notifications and messages Claude Code injected itself are part of the Turn they follow.
 */
export function isRootUserMessage(message: SessionMessage): boolean {
  if (message.type !== 'user' || message.parent_tool_use_id) return false;
  const extra = message as SessionMessage & Record<string, unknown>;
  // `isSynthetic` is what older transcripts carry; this SDK reports injected messages as `is_meta`.
  if (extra.isSynthetic === true || extra.is_meta === true) return false;
  if (originKind(extra.origin) === 'coordinator') return false;
  const content = contentOf(message);
  if (Array.isArray(content) && content.some((block) => blockType(block) === 'tool_result')) return false;
  return !textOf(content).includes(TASK_NOTIFICATION_TAG);
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
    const text = blockType(block) === 'text' ? (block as { text?: unknown }).text : undefined;
    if (typeof text !== 'string') return undefined;
    texts.push(text);
  }
  return texts.join('\n\n');
}

function contentOf(message: SessionMessage): unknown {
  const body = message.message;
  return typeof body === 'object' && body !== null ? (body as { content?: unknown }).content : undefined;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (blockType(block) === 'text' ? (block as { text?: unknown }).text : undefined))
    .filter((text): text is string => typeof text === 'string')
    .join('\n');
}

function blockType(block: unknown): unknown {
  return typeof block === 'object' && block !== null ? (block as { type?: unknown }).type : undefined;
}

function originKind(origin: unknown): unknown {
  return typeof origin === 'object' && origin !== null ? (origin as { kind?: unknown }).kind : undefined;
}
