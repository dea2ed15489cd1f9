import { CLAUDE_CODE_EXITED_CODE } from '@outrigger/protocol';
import { TurnIdentityError } from './providerTurnIdentity.ts';
import type { TurnTerminal } from './turnLifecycle.ts';

/**
 * The turn error for a Query that ended on its own. SDK process errors embed the child's stderr tail, so
 * only the exit code or signal is kept from them.
 */
export function describeQueryEnd(failure: unknown): string {
  if (failure === undefined) return 'Claude Code process exited unexpectedly';
  if (failure instanceof TurnIdentityError) return failure.message;
  const message = failure instanceof Error ? failure.message : String(failure);
  const code = /process exited with code (\d+)/.exec(message)?.[1];
  if (code !== undefined) return `Claude Code process exited unexpectedly (code ${code})`;
  const signal = /process terminated by signal (\w+)/.exec(message)?.[1];
  if (signal !== undefined) return `Claude Code process exited unexpectedly (signal ${signal})`;
  const firstLine = message.split('\n', 1)[0]?.slice(0, 200) ?? '';
  return firstLine ? `Claude SDK query failed: ${firstLine}` : 'Claude SDK query failed';
}

/** The terminal of the turn that was running when its Query ended on its own: coded when the child exited. */
export function queryEndTerminal(failure: unknown): TurnTerminal {
  const error = describeQueryEnd(failure);
  return error.startsWith('Claude Code process exited')
    ? { type: 'turn_failed', error, code: CLAUDE_CODE_EXITED_CODE }
    : { type: 'turn_failed', error };
}
