import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { SidecarEventPayload } from '@outrigger/protocol';
import { asRecord, isRootMessage, isTaskNotification, stringField, systemSubtype } from '../shared/sdkMessages.ts';

const OBSERVED_SYSTEM_SUBTYPES = new Set([
  'task_started',
  'task_progress',
  'task_notification',
  'task_updated',
  'background_tasks_changed',
  'session_state_changed',
  'api_retry',
]);

/**
 * The `sdk_lifecycle_observed` payload for SDK messages that explain what the provider is doing between
 * turns (task edges, retries, state changes, results, and root output no user turn owns: none is active,
 * or the active one is a synthetic turn still waiting for its continuation to start); undefined for
 * everything else. Only ids, enums and numbers are copied, never content.
 */
export function lifecycleObservation(
  message: SDKMessage,
  activeTurnIdBefore: string | undefined,
  continuationAwaited = false,
): SidecarEventPayload<'sdk_lifecycle_observed'> | undefined {
  const record = message as Record<string, unknown>;
  const subtype = systemSubtype(message);
  const taskNotification = isTaskNotification(message);
  const unownedRootAssistant =
    message.type === 'assistant' && isRootMessage(message) && (!activeTurnIdBefore || continuationAwaited);
  const observed =
    message.type === 'result' ||
    unownedRootAssistant ||
    (message.type === 'user' && taskNotification) ||
    (subtype !== undefined && OBSERVED_SYSTEM_SUBTYPES.has(subtype));
  if (!observed) return undefined;

  const payload: SidecarEventPayload<'sdk_lifecycle_observed'> & Record<string, unknown> = {
    sdkMessageType: message.type,
    activeTurnIdBefore: activeTurnIdBefore ?? '',
  };
  if (subtype) payload.sdkMessageSubtype = subtype;
  else if (message.type === 'result') payload.sdkMessageSubtype = message.subtype;
  if (taskNotification) payload.taskNotification = true;
  if (unownedRootAssistant) payload.rootContinuationCandidate = true;
  copyString(record, 'parent_tool_use_id', payload, 'parentToolUseId');
  copyString(record, 'task_id', payload, 'taskId');
  copyString(record, 'agent_id', payload, 'agentId');
  copyString(record, 'tool_use_id', payload, 'toolUseId');
  copyString(record, 'status', payload, 'status');
  copyString(record, 'state', payload, 'state');
  const originKind = stringField(asRecord(record.origin), 'kind');
  if (originKind) payload.sdkMessageOrigin = originKind;
  if (message.type === 'result') {
    payload.sdkResultIsError = message.is_error;
    const status = record.api_error_status;
    if (typeof status === 'number') payload.sdkApiErrorStatus = status;
    if (message.is_error && status === null) payload.sdkConnectionError = true;
  }
  if (subtype === 'api_retry') {
    payload.apiRetry = true;
    if (typeof record.error_status === 'number') payload.sdkApiErrorStatus = record.error_status;
    if (record.error_status === null) payload.sdkConnectionError = true;
    copyNumber(record, 'attempt', payload, 'sdkRetryAttempt');
    copyNumber(record, 'max_retries', payload, 'sdkMaxRetries');
    copyNumber(record, 'retry_delay_ms', payload, 'sdkRetryDelayMs');
    copyString(record, 'error', payload, 'sdkAssistantError');
  }
  if (message.type === 'assistant') copyString(record, 'error', payload, 'sdkAssistantError');
  return payload;
}

function copyString(from: Record<string, unknown>, key: string, to: Record<string, unknown>, as: string): void {
  const value = from[key];
  if (typeof value === 'string' && value.length > 0) to[as] = value;
}

function copyNumber(from: Record<string, unknown>, key: string, to: Record<string, unknown>, as: string): void {
  const value = from[key];
  if (typeof value === 'number') to[as] = value;
}
