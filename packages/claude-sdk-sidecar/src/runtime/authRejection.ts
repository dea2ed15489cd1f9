import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { asRecord, isRootMessage, systemSubtype } from '../shared/sdkMessages.ts';
import type { TurnTerminal } from './turnLifecycle.ts';

/**
 * A root signal that the API refused the credentials. Claude Code would keep retrying for a long time;
 * a Turn that has not been accepted yet fails at once instead.
 */
export function isAuthenticationRejection(message: SDKMessage): boolean {
  if (!isRootMessage(message)) return false;
  const record = message as Record<string, unknown>;
  if (systemSubtype(message) === 'api_retry') {
    return record.error_status === 401 || record.error === 'authentication_failed';
  }
  if (message.type === 'assistant') return record.error === 'authentication_failed';
  if (message.type === 'result') {
    return message.is_error && asRecord(message)?.api_error_status === 401;
  }
  return false;
}

export const AUTHENTICATION_REJECTED: TurnTerminal = {
  type: 'turn_failed',
  error: 'Claude API rejected the credentials (HTTP 401 authentication_failed)',
  code: 'authentication_failed',
  apiErrorStatus: 401,
  dispatchDisposition: 'rejected',
};
