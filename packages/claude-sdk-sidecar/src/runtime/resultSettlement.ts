import type { SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { asRecord } from '../shared/sdkMessages.ts';
import type { TurnTerminal } from './turnLifecycle.ts';

/** The terminal event a root result settles its Turn with. */
export function terminalForResult(result: SDKResultMessage, assistantError: string | undefined): TurnTerminal {
  if (result.subtype === 'success' && !result.is_error && !assistantError) {
    return { type: 'turn_completed', stopReason: 'end_turn' };
  }
  const apiErrorStatus = resultApiErrorStatus(result);
  return {
    type: 'turn_failed',
    error: resultErrorMessage(result, assistantError),
    ...(assistantError ? { code: assistantError } : {}),
    ...(typeof apiErrorStatus === 'number' ? { apiErrorStatus } : {}),
  };
}

function resultErrorMessage(result: SDKResultMessage, assistantError: string | undefined): string {
  if (result.subtype !== 'success') {
    const first = result.errors.find((error) => error.trim().length > 0);
    if (first) return first;
  } else if (result.result.trim().length > 0) {
    return result.result;
  }
  return assistantError ?? 'Claude SDK turn failed';
}

/** `null` means the request never got an HTTP answer; `undefined` means the result did not say. */
function resultApiErrorStatus(result: SDKResultMessage): number | null | undefined {
  const status = asRecord(result)?.api_error_status;
  return typeof status === 'number' || status === null ? status : undefined;
}

/** A failed result whose API call never got an HTTP status: the connection is gone, not just this turn. */
export function isTerminalConnectionError(result: SDKResultMessage): boolean {
  return result.is_error && resultApiErrorStatus(result) === null;
}
