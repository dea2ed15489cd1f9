import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { asRecord, contentText, type JsonRecord } from './sdkValues.ts';

/**
 * Structural reads of SDK messages. The SDK stream carries message kinds its types do not list (for
 * example `command_lifecycle` and transcript attachments), so these helpers read fields defensively.
 */

type SdkRecord = JsonRecord;

export { asRecord };

export function stringField(record: SdkRecord | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function isRootMessage(message: SDKMessage): boolean {
  const parent = (message as SdkRecord).parent_tool_use_id;
  return parent === null || parent === undefined;
}

export function messageUuid(message: SDKMessage): string | undefined {
  return stringField(message as SdkRecord, 'uuid');
}

export function systemSubtype(message: SDKMessage): string | undefined {
  return message.type === 'system' ? stringField(message as SdkRecord, 'subtype') : undefined;
}

export const TASK_NOTIFICATION_TAG = '<task-notification>';

function userContent(message: SdkRecord): unknown {
  return asRecord(message.message)?.content;
}

function hasToolResultBlock(content: unknown): boolean {
  return Array.isArray(content) && content.some((block) => asRecord(block)?.type === 'tool_result');
}

/** A task notification arrives as a user message, an origin marker, or a queued_command attachment. */
export function isTaskNotification(message: SDKMessage): boolean {
  const record = message as SdkRecord;
  if (asRecord(record.origin)?.kind === 'task-notification') return true;
  if (asRecord(record.attachment)?.commandMode === 'task-notification') return true;
  return message.type === 'user' && contentText(userContent(record)).includes(TASK_NOTIFICATION_TAG);
}

/**
 * The evidence a root prompt echo gives: the durable uuid Claude Code gave the prompt, and the outbound
 * correlation uuid it answers. They differ when Claude Code folded the prompt into a running turn and
 * recorded it as a `queued_command` attachment with a new uuid.
 */
export interface RootPromptEcho {
  providerTurnId: string;
  correlationId: string;
}

/**
 * Decision 3: only a real root prompt can carry a Turn's identity. A tool_result carrier, a synthetic
 * message, a coordinator or task notification never does.
 */
export function rootPromptEcho(message: SDKMessage): RootPromptEcho | undefined {
  const record = message as SdkRecord;
  const uuid = stringField(record, 'uuid');
  if (!uuid || !isRootMessage(message) || isTaskNotification(message)) return undefined;
  const attachment = asRecord(record.attachment);
  if (attachment) {
    const source = attachment.type === 'queued_command' ? stringField(attachment, 'source_uuid') : undefined;
    return source ? { providerTurnId: uuid, correlationId: source } : undefined;
  }
  if (message.type !== 'user' || record.isSynthetic === true) return undefined;
  if (asRecord(record.origin)?.kind === 'coordinator') return undefined;
  if (hasToolResultBlock(userContent(record))) return undefined;
  return { providerTurnId: uuid, correlationId: uuid };
}

/** Root messages whose uuid is a durable transcript row, so a fork or resume can cut there. */
export function durableCheckpointUuid(message: SDKMessage): string | undefined {
  if (!isRootMessage(message)) return undefined;
  if (message.type !== 'user' && message.type !== 'assistant') return undefined;
  return messageUuid(message);
}
