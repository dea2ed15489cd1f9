import { createHash } from 'node:crypto';
import { FORK_RECEIPT_PREFIX, type ForkSessionPayload, type ForkSessionResult } from '@outrigger/protocol';
import {
  claudeSessionSdk,
  projectDir,
  readTranscript,
  requireProviderSessionId,
  type SessionSdk,
} from './sessionSdk.ts';
import { buildTurnBindings } from './transcriptBindings.ts';

export type ForkStage = 'source_lookup' | 'provider_fork' | 'child_verification';

/** 'not_started': provider history is untouched, a retry is safe. 'unknown': a child may exist; never replay. */
export type ForkDeliveryDisposition = 'not_started' | 'unknown';

/** Carries `stage` and `deliveryDisposition` for the `error` response. */
export class ForkSessionError extends Error {
  readonly stage: ForkStage;
  readonly deliveryDisposition: ForkDeliveryDisposition;

  constructor(stage: ForkStage, cause: unknown) {
    super(`Claude SDK session fork failed at ${stage}: ${messageOf(cause)}`, { cause });
    this.name = 'ForkSessionError';
    this.stage = stage;
    this.deliveryDisposition = stage === 'source_lookup' ? 'not_started' : 'unknown';
  }
}

interface ForkSource {
  sourceSessionId: string;
  sourceProviderTurnId: string;
  checkpointId: string;
  /** The host supplied the checkpoint, so the source transcript was not read. */
  persistedCheckpoint: boolean;
}

interface ProviderFork {
  childSessionId: string;
  checkpointId: string;
}

/**
 * Forks a provider session at the end of one Turn with the official `forkSession` mutation. Claude
 * allocates the child id, so nothing after the mutation starts can be retried blindly: those failures
 * are reported with an 'unknown' delivery. Source and child content are never compared; the child is
 * bound through its own transcript.
 */
export async function forkSession(
  payload: ForkSessionPayload,
  sdk: SessionSdk = claudeSessionSdk,
): Promise<ForkSessionResult> {
  const source = await atStage('source_lookup', () => lookupSource(payload, sdk));
  const fork = await atStage('provider_fork', () => forkAtCheckpoint(payload, source, sdk));
  return atStage('child_verification', () => verifyChild(payload.cwd, source, fork, sdk));
}

async function atStage<T>(stage: ForkStage, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new ForkSessionError(stage, error);
  }
}

async function lookupSource(payload: ForkSessionPayload, sdk: SessionSdk): Promise<ForkSource> {
  const sourceSessionId = requireProviderSessionId(payload.providerSessionId);
  const sourceProviderTurnId = payload.providerTurnId.trim();
  if (!sourceProviderTurnId) throw new Error('provider turn id is required');
  const persisted = payload.providerCheckpointMessageId.trim();
  return {
    sourceSessionId,
    sourceProviderTurnId,
    checkpointId: persisted || (await transcriptCheckpoint(sdk, sourceSessionId, sourceProviderTurnId, payload.cwd)),
    persistedCheckpoint: persisted !== '',
  };
}

/** The last message of the selected Turn: the one before the next root user message. */
async function transcriptCheckpoint(
  sdk: SessionSdk,
  sessionId: string,
  providerTurnId: string,
  cwd: string,
): Promise<string> {
  const bindings = buildTurnBindings(await readTranscript(sdk, sessionId, cwd));
  const binding = bindings.find((candidate) => candidate.providerTurnId === providerTurnId);
  if (!binding) throw new Error('selected provider turn is absent from Claude transcript');
  return binding.checkpointMessageId;
}

async function forkAtCheckpoint(
  payload: ForkSessionPayload,
  source: ForkSource,
  sdk: SessionSdk,
): Promise<ProviderFork> {
  const title = payload.title.trim();
  const fork = async (checkpointId: string): Promise<ProviderFork> => {
    const { sessionId } = await sdk.forkSession(source.sourceSessionId, {
      ...projectDir(payload.cwd),
      upToMessageId: checkpointId,
      ...(title ? { title } : {}),
    });
    return { childSessionId: sessionId, checkpointId };
  };
  try {
    return await fork(source.checkpointId);
  } catch (error) {
    // A persisted checkpoint may name an ephemeral message (older hosts stored session_state uuids)
    // that never reached the transcript: the Turn's real checkpoint is read once and the fork retried.
    const missing = `Message ${source.checkpointId} not found in session ${source.sourceSessionId}`;
    if (!source.persistedCheckpoint || messageOf(error) !== missing) throw error;
    const recovered = await transcriptCheckpoint(sdk, source.sourceSessionId, source.sourceProviderTurnId, payload.cwd);
    if (recovered === source.checkpointId) throw error;
    return fork(recovered);
  }
}

const SESSION_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

async function verifyChild(
  cwd: string,
  source: ForkSource,
  fork: ProviderFork,
  sdk: SessionSdk,
): Promise<ForkSessionResult> {
  const { childSessionId, checkpointId } = fork;
  if (!SESSION_UUID.test(childSessionId)) throw new Error('forked Claude session id is not a UUID');
  if (childSessionId === source.sourceSessionId) throw new Error('forked Claude session id equals its source');
  const [info, messages] = await Promise.all([
    sdk.getSessionInfo(childSessionId, projectDir(cwd)),
    readTranscript(sdk, childSessionId, cwd),
  ]);
  if (info?.sessionId && info.sessionId !== childSessionId) {
    throw new Error('forked Claude session info names a different session');
  }
  if (!info && messages.length === 0) throw new Error('forked Claude session is not discoverable');
  const targetTurnBindings = buildTurnBindings(messages);
  const target = targetTurnBindings.at(-1);
  if (!target) throw new Error('forked Claude transcript has no root turn bindings');
  const attested = {
    sourceSessionId: source.sourceSessionId,
    childSessionId,
    checkpointId,
    targetTurnBindings,
    sourceProviderTurnId: source.sourceProviderTurnId,
    targetProviderTurnId: target.providerTurnId,
  };
  return {
    providerSessionId: childSessionId,
    targetProviderTurnBindings: targetTurnBindings,
    stateBindingMode: 'provider_owned',
    stateBindingReceipt: FORK_RECEIPT_PREFIX + createHash('sha256').update(JSON.stringify(attested)).digest('hex'),
    deliveryDisposition: 'accepted',
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
