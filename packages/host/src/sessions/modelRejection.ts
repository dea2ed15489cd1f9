import { HostError } from '../hostError.ts';
import { classifySidecarFailure } from '../sidecar/sidecarFailure.ts';

/**
 * A sidecar refusal at stage `model` (Claude Code rejected the chosen model, at `start` or `apply_settings`)
 * as the API says it: `validation_failed` about the `model` field, so a client shows it where the model was chosen.
 * Undefined for any other failure.
 */
export function modelRejectionOf(error: unknown): HostError | undefined {
  const failure = classifySidecarFailure(error);
  if (failure.kind !== 'refused' || failure.stage !== 'model') return undefined;
  const message = `${failure.message}. Pick one of the models Claude Code lists, or another model id it accepts.`;
  return new HostError('validation_failed', message, [{ path: 'model', message }]);
}
