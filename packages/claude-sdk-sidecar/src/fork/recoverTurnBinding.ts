import type { RecoverTurnBindingPayload, RecoverTurnBindingResult } from '@outrigger/protocol';
import { claudeSessionSdk, readTranscript, requireProviderSessionId, type SessionSdk } from './sessionSdk.ts';
import { resolveTurnBinding } from './turnBindingResolution.ts';

/**
 * Recovers a provider Turn binding a host lost (e.g. it crashed before persisting it) from the
 * durable transcript, without touching provider history.
 */
export async function recoverTurnBinding(
  payload: RecoverTurnBindingPayload,
  sdk: SessionSdk = claudeSessionSdk,
): Promise<RecoverTurnBindingResult> {
  const providerSessionId = requireProviderSessionId(payload.providerSessionId);
  const messages = await readTranscript(sdk, providerSessionId, payload.cwd);
  const binding = resolveTurnBinding(messages, {
    recoveryToken: payload.recoveryToken,
    legacyTextHmacKey: payload.legacyTextHmacKey,
    legacyTextHmacDigest: payload.legacyTextHmacDigest,
  });
  return { providerSessionId, ...binding };
}
