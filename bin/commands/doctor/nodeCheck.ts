import { isAtLeast, nodeProblem, REQUIRED_NODE } from '../../../release/launcher/nodeRequirement.ts';
import { type CheckResult, fail, ok } from './checkResult.ts';

/** The running Node against what the installed package needs (the launcher's own rule, `REQUIRED_NODE`). */
export function checkNode(input: { version: string; execPath: string; required?: string }): CheckResult {
  const required = input.required ?? REQUIRED_NODE;
  if (isAtLeast(input.version, required))
    return ok('node', `${input.version} at ${input.execPath} (needs >= ${required})`);
  return fail('node', nodeProblem(input.version, input.execPath, required) ?? `needs >= ${required}`);
}
