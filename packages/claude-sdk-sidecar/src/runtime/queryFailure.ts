import { TurnIdentityError } from './providerTurnIdentity.ts';

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
