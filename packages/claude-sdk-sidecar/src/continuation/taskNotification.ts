import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { isRootMessage, TASK_NOTIFICATION_TAG } from '../shared/sdkMessages.ts';
import { asRecord, contentText, type JsonRecord, nonEmptyString } from '../shared/sdkValues.ts';

/** What a background task's completion notice says: which task, and how it ended. */
export interface TaskNotification {
  readonly taskId: string | undefined;
  readonly status: string | undefined;
}

/** The XML element a task-notification prompt carries. */

/**
 * A background task's completion notice, in any of the forms Claude Code sends it: the system
 * `task_notification` message, a root user message carrying the `<task-notification>` XML, or a
 * `queued_command` attachment in task-notification mode. Undefined for every other message.
 */
export function readTaskNotification(message: SDKMessage): TaskNotification | undefined {
  const record = message as unknown as JsonRecord;
  if (message.type === 'system' && record.subtype === 'task_notification') {
    return { taskId: nonEmptyString(record.task_id), status: nonEmptyString(record.status) };
  }
  const attachment = asRecord(record.attachment);
  if (attachment?.type === 'queued_command' && attachment.commandMode === 'task-notification') {
    return fromXml(contentText(attachment.prompt)) ?? { taskId: undefined, status: undefined };
  }
  if (message.type !== 'user' || !isRootMessage(message)) return undefined;
  return fromXml(contentText(asRecord(record.message)?.content));
}

function fromXml(text: string): TaskNotification | undefined {
  const start = text.indexOf(TASK_NOTIFICATION_TAG);
  if (start < 0) return undefined;
  const body = text.slice(start);
  return { taskId: tagValue(body, 'task-id'), status: tagValue(body, 'status') };
}

function tagValue(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return nonEmptyString(match?.[1]?.trim());
}
