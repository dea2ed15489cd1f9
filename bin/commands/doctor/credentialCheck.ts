import { MODEL_CREDENTIAL_VARIABLES, type ModelCredential } from '@outrigger/claude-sdk-sidecar/credentials';
import { credentialReason } from '../modelBackend.ts';
import { type CheckResult, note, ok } from './checkResult.ts';

/**
 * Which credential Claude Code would use and where it was found, as `outrigger serve` decides it. Only a
 * variable's name or a file's path is shown: `ModelCredential` never carries the secret. None is no failure,
 * the offline demo model answers then.
 */
export function checkCredential(credential: ModelCredential | undefined): CheckResult {
  if (credential !== undefined) return ok('credential', `Claude answers: ${credentialReason(credential)}`);
  return note(
    'credential',
    `none found, so the offline demo model answers (not a failure); for Claude set one of ${MODEL_CREDENTIAL_VARIABLES.join(', ')} or log in to Claude Code`,
  );
}
