import type { PermissionUpdate } from '@anthropic-ai/claude-agent-sdk';
import type { SidecarEventPayload } from '@outrigger/protocol';
import type { InteractiveSubmission } from './interactiveRegistry.ts';

export type InteractionOption = SidecarEventPayload<'approval_requested'>['options'][number];

export const DEFAULT_DENY_MESSAGE = 'User refused permission to run tool';

const allowForSession: InteractionOption = {
  kind: 'allow_always',
  name: 'Allow for session',
  optionId: 'allow_always',
};
const allowOnce: InteractionOption = { kind: 'allow_once', name: 'Allow', optionId: 'allow' };
const reject: InteractionOption = { kind: 'reject_once', name: 'Reject', optionId: 'reject' };

/**
 * "Allow for session" is left out when Claude Code says this ask must not offer a standing grant. When
 * offered, it says what it covers (`sessionGrant`): the session ledger remembers this exact request, and
 * Claude Code applies the rules and directories of `grant` (see `sessionGrant`) for the rest of the session.
 */
export function approvalOptions(
  offerAllowForSession: boolean,
  grant: readonly PermissionUpdate[] = [],
): InteractionOption[] {
  if (!offerAllowForSession) return [allowOnce, reject];
  return [{ ...allowForSession, sessionGrant: grantSummary(grant) } as InteractionOption, allowOnce, reject];
}

/** The rules (`Bash(npm test:*)`, `Bash(touch a.txt)`, `WebFetch`) and directories a session grant adds. */
export function grantSummary(grant: readonly PermissionUpdate[]): { rules: string[]; directories: string[] } {
  const rules: string[] = [];
  const directories: string[] = [];
  for (const update of grant) {
    if (update.type === 'addRules') {
      for (const rule of update.rules) {
        rules.push(rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`);
      }
    } else if (update.type === 'addDirectories') {
      directories.push(...update.directories);
    }
  }
  return { rules, directories };
}

const allowChoices: ReadonlySet<string> = new Set([
  'allow',
  'allow_always',
  'accept',
  'acceptEdits',
  'default',
  'auto',
  'bypassPermissions',
]);

/** Actions and option ids that refuse, whatever the other field says. */
const refusals: ReadonlySet<string> = new Set(['reject', 'reject_once', 'deny', 'decline', 'cancel']);

/**
 * An answer refuses when its `action` or its `optionId` does: a contradictory answer (say `action: "allow"`
 * with `optionId: "reject"`, or the reverse) fails safe, as a refusal.
 */
export function isRefusal(submission: InteractiveSubmission): boolean {
  return refusals.has(submission.action) || refusals.has(submission.optionId);
}

/** The option the host chose: `optionId`, or `action` when a host sends only that; undefined for a refusal. */
export function chosenOption(submission: InteractiveSubmission): string | undefined {
  if (isRefusal(submission)) return undefined;
  return submission.optionId || submission.action;
}

export type ApprovalDecision = 'allow_for_session' | 'allow_once' | 'deny';

export function approvalDecision(submission: InteractiveSubmission): ApprovalDecision {
  const choice = chosenOption(submission);
  if (choice === 'allow_always') return 'allow_for_session';
  return choice !== undefined && allowChoices.has(choice) ? 'allow_once' : 'deny';
}

/** The host's own deny text when it gave one. */
export function denyMessage(submission: InteractiveSubmission, fallback: string): string {
  const message = submission.payload.denyMessage;
  return typeof message === 'string' && message.trim() !== '' ? message : fallback;
}

/**
 * What "Allow for session" grants: the rule and directory suggestions of Claude Code, scoped to the session.
 * Claude Code suggests persisting Bash rules to `localSettings`; a session grant must never write the
 * user's settings files. Mode changes are left out: the permission mode belongs to the host's settings.
 */
export function sessionGrant(suggestions: readonly PermissionUpdate[] | undefined): PermissionUpdate[] {
  const grant: PermissionUpdate[] = [];
  for (const suggestion of suggestions ?? []) {
    if (suggestion.type === 'addRules' && suggestion.behavior === 'allow') {
      grant.push({ ...suggestion, destination: 'session' });
    } else if (suggestion.type === 'addDirectories') {
      grant.push({ ...suggestion, destination: 'session' });
    }
  }
  return grant;
}
