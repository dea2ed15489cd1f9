import type { PermissionMode, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import { chosenOption, type InteractionOption } from './approvalOptions.ts';
import type { InteractiveSubmission } from './interactiveRegistry.ts';

export const EXIT_PLAN_MODE_REJECTED = 'User rejected request to exit plan mode.';

/** The modes a user may leave plan mode into, in the order they are offered, then "keep planning". */
export function exitPlanModeOptions(canBypassPermissions: boolean): InteractionOption[] {
  const options: InteractionOption[] = [];
  if (canBypassPermissions) {
    options.push({ kind: 'allow_always', name: 'Yes, and bypass permissions', optionId: 'bypassPermissions' });
  }
  options.push(
    { kind: 'allow_always', name: 'Yes, and use "auto" mode', optionId: 'auto' },
    { kind: 'allow_always', name: 'Yes, and auto-accept edits', optionId: 'acceptEdits' },
    { kind: 'allow_once', name: 'Yes, and manually approve edits', optionId: 'default' },
    { kind: 'reject_once', name: 'No, keep planning', optionId: 'plan' },
  );
  return options;
}

/** A host that only says "allow" leaves plan mode into the default, manually approved mode. */
const genericAllow: ReadonlySet<string> = new Set(['allow', 'allow_always', 'accept']);

/**
 * Allow with the chosen mode applied to the session, or deny to keep planning. A bypass choice the
 * session may not make is refused rather than downgraded: staying in plan mode is the safe outcome.
 */
export function exitPlanModeResult(
  submission: InteractiveSubmission,
  input: Record<string, unknown>,
  canBypassPermissions: boolean,
): PermissionResult {
  const mode = planExitMode(chosenOption(submission), canBypassPermissions);
  if (mode === undefined) return { behavior: 'deny', message: EXIT_PLAN_MODE_REJECTED };
  return {
    behavior: 'allow',
    updatedInput: input,
    updatedPermissions: [{ type: 'setMode', mode, destination: 'session' }],
  };
}

function planExitMode(choice: string | undefined, canBypassPermissions: boolean): PermissionMode | undefined {
  if (choice === undefined) return undefined;
  if (genericAllow.has(choice) || choice === 'default') return 'default';
  if (choice === 'auto' || choice === 'acceptEdits') return choice;
  if (choice === 'bypassPermissions' && canBypassPermissions) return 'bypassPermissions';
  return undefined;
}
