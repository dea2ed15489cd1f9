import type { InspectForkCheckpointsPayload, InspectForkCheckpointsResult } from '@outrigger/protocol';
import { claudeSessionSdk, readTranscript, requireProviderSessionId, type SessionSdk } from './sessionSdk.ts';
import { rootUserMessages } from './transcriptBindings.ts';

/** Lists the provider Turn ids (root user-message uuids) of a session, oldest first. Read-only. */
export async function inspectForkCheckpoints(
  payload: InspectForkCheckpointsPayload,
  sdk: SessionSdk = claudeSessionSdk,
): Promise<InspectForkCheckpointsResult> {
  const sessionId = requireProviderSessionId(payload.providerSessionId);
  const messages = await readTranscript(sdk, sessionId, payload.cwd);
  const providerTurnIds = rootUserMessages(messages).map((message) => message.uuid);
  if (providerTurnIds.some((id) => !id) || new Set(providerTurnIds).size !== providerTurnIds.length) {
    throw new Error('Claude transcript contains an invalid root user identity');
  }
  return { providerTurnIds };
}
