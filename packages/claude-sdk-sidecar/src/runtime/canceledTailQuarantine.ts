import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { isTaskNotification, systemSubtype } from '../shared/sdkMessages.ts';

/** System messages about background tasks: after a cancel they describe the canceled run's work. */
const TASK_SYSTEM_SUBTYPES: ReadonlySet<string> = new Set([
  'task_started',
  'task_progress',
  'task_updated',
  'task_notification',
  'background_tasks_changed',
]);

/**
 * Reference §3.1, the canceled-tail quarantine. The first Query after a cancel resumes a session whose
 * canceled run may still deliver background output: task edges, task notifications (as text or as
 * queued_command attachments), the follow-up they cause and its result. None of it may attach to the
 * next Turn, so until the new prompt's echo is followed by the new run's own assistant message or
 * result, that tail is dropped before the router sees it:
 *
 * - task system messages and task notifications, always;
 * - a root result before the new prompt echo, and any result of a task notification;
 * - model output before the echo that follows a dropped notification (the follow-up it caused).
 */
export class CanceledTailQuarantine {
  readonly #isCurrentPromptEcho: (message: SDKMessage) => boolean;
  #cleared = false;
  #echoed = false;
  /** A notification of the canceled run was dropped and its follow-up has not ended yet. */
  #inTail = false;

  /** `isCurrentPromptEcho`: the message is the echo of a prompt a live turn is waiting for. */
  constructor(isCurrentPromptEcho: (message: SDKMessage) => boolean) {
    this.#isCurrentPromptEcho = isCurrentPromptEcho;
  }

  get cleared(): boolean {
    return this.#cleared;
  }

  /** False when the message belongs to the canceled run's tail and must be dropped unseen. */
  admits(message: SDKMessage): boolean {
    if (this.#cleared) return true;
    if (message.type === 'result') {
      if (this.#echoed && !isTaskNotification(message)) {
        this.#cleared = true;
        return true;
      }
      this.#inTail = false;
      return false;
    }
    if (isTaskSystemMessage(message) || isTaskNotification(message)) {
      if (!this.#echoed) this.#inTail = true;
      return false;
    }
    if (this.#isCurrentPromptEcho(message)) {
      this.#echoed = true;
      this.#inTail = false;
      return true;
    }
    if (!isModelOutput(message)) return true;
    if (this.#echoed) {
      if (message.type === 'assistant') this.#cleared = true;
      return true;
    }
    return !this.#inTail;
  }
}

function isTaskSystemMessage(message: SDKMessage): boolean {
  const subtype = systemSubtype(message);
  return subtype !== undefined && TASK_SYSTEM_SUBTYPES.has(subtype);
}

function isModelOutput(message: SDKMessage): boolean {
  return message.type === 'assistant' || message.type === 'stream_event' || message.type === 'tool_progress';
}
