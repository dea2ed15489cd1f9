import type { SessionGrant, ToolDecision, ToolOutcome, ToolUseBlock } from '@outrigger/host-api';
import { chosenAnswers } from './questionForm.ts';

/*
 * The words for how a tool call ended and what the person decided. Both come from the stored tool block
 * (`outcome`, `decision`), never from state only a live tab has, so a call reads the same live and after a
 * reload.
 */

/** How the call ended; a block from an older host (no `outcome`) is read from its status and result. */
export function outcomeOf(
  tool: Pick<ToolUseBlock, 'status'> & Partial<Pick<ToolUseBlock, 'outcome'>>,
  result: { is_error: boolean; resultSource: string } | undefined,
): ToolOutcome | 'running' {
  if (tool.outcome === 'timed_out' && tool.status !== 'running') return 'timed_out';
  if (tool.status === 'running') return 'running';
  if (tool.outcome != null) return tool.outcome;
  if (result?.resultSource === 'synthesized') return 'stopped';
  return tool.status === 'failed' || result?.is_error === true ? 'failed' : 'completed';
}

/** The word in a call's head for an outcome that is not plain success; null for `completed`. */
export function outcomeLabel(outcome: ToolOutcome, decision: ToolDecision | null): string | null {
  switch (outcome) {
    case 'completed':
      return null;
    case 'denied':
      return decision?.kind === 'question' ? 'skipped' : decision?.kind === 'plan' ? 'sent back' : 'denied';
    case 'timed_out':
      return 'timed out';
    default:
      return outcome;
  }
}

/** The line a decided call keeps: `Allowed once.`, `Denied: not now.`, `Answered: SQLite.` */
export function decisionText(decision: ToolDecision, toolName: string): string {
  switch (decision.choice) {
    case 'allowed_once':
      return 'Allowed once.';
    case 'allowed_for_session':
      return `Allowed for this session: ${grantText(decision.sessionGrant, toolName)}.`;
    case 'denied':
      return decision.denyMessage === null ? 'Denied.' : `Denied: ${decision.denyMessage}`;
    case 'answered': {
      const chosen =
        decision.questions.length > 0
          ? decision.questions.flatMap((question) => question.answers).join(', ')
          : chosenAnswers(decision.answer?.payload ?? {});
      return chosen === '' ? 'Answered.' : `Answered: ${chosen}.`;
    }
    case 'skipped':
      return 'Question skipped.';
    case 'plan_approved':
      return `Plan approved${decision.permissionMode === null ? '' : ` (${decision.permissionMode})`}.`;
    case 'kept_planning':
      return 'Kept planning.';
    case 'not_answered':
      return `Not answered: ${
        decision.resolution === 'sidecar_exited'
          ? 'the agent process exited'
          : decision.resolution === 'host_stopped'
            ? 'the host was stopped'
            : decision.resolution === 'host_restarted'
              ? 'the host crashed or was killed'
              : 'its turn ended'
      }.`;
  }
}

/**
 * What "Allow for this session" covers, as the agent remembers it: this exact request always, plus the
 * rules and directories Claude Code suggested (`Bash(npm test:*)`). Null grant: the exact request only.
 */
export function grantText(grant: SessionGrant | null | undefined, toolName: string): string {
  const exact = toolName === 'Bash' ? 'this exact command' : `this exact ${toolName} request`;
  const rules = grant?.rules ?? [];
  const directories = (grant?.directories ?? []).map((directory) => `files in ${directory}`);
  const more = [...rules, ...directories];
  return more.length === 0 ? exact : `${exact}, and ${more.join(', ')}`;
}
