import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SessionMessage } from '@anthropic-ai/claude-agent-sdk';
import { sessionSdkForConfigDir } from './configDirSessionSdk.ts';
import { readTranscript, type SessionSdk } from './sessionSdk.ts';
import { buildTurnBindings, pureTextOf, rootUserMessages } from './transcriptBindings.ts';

/** Counts only: a recovery failure must never reveal transcript content. */
export interface TurnBindingResolutionDetails {
  transcriptMessageCount: number;
  rootUserMessageCount: number;
  matchingRootUserMessageCount: number;
  latestRootUserMessageId: string | undefined;
}

export type TurnBindingResolutionReason = 'absent' | 'ambiguous';

export class TurnBindingResolutionError extends Error {
  readonly reason: TurnBindingResolutionReason;
  readonly details: TurnBindingResolutionDetails;

  constructor(reason: TurnBindingResolutionReason, details: TurnBindingResolutionDetails) {
    super(`Claude provider turn recovery proof is ${reason}`);
    this.name = 'TurnBindingResolutionError';
    this.reason = reason;
    this.details = details;
  }
}

/** What identifies the root user message: an opaque token, or else a legacy HMAC of its exact text. */
export interface TurnBindingProof {
  recoveryToken: string;
  legacyTextHmacKey?: string;
  legacyTextHmacDigest?: string;
}

export interface ResolvedTurnBinding {
  providerTurnId: string;
  providerCheckpointMessageId: string;
}

/** Finds exactly one root user message matching the proof and returns its Turn binding. */
export function resolveTurnBinding(messages: readonly SessionMessage[], proof: TurnBindingProof): ResolvedTurnBinding {
  const roots = rootUserMessages(messages);
  const bindings = buildTurnBindings(messages);
  if (bindings.length !== roots.length) {
    throw new Error('Claude transcript contains incomplete root turn bindings');
  }
  const matching = roots.filter(matchesProof(proof));
  const binding = matching.length === 1 ? bindings.find((b) => b.providerTurnId === matching[0]?.uuid) : undefined;
  if (binding) {
    return { providerTurnId: binding.providerTurnId, providerCheckpointMessageId: binding.checkpointMessageId };
  }
  throw new TurnBindingResolutionError(matching.length === 0 ? 'absent' : 'ambiguous', {
    transcriptMessageCount: messages.length,
    rootUserMessageCount: roots.length,
    matchingRootUserMessageCount: matching.length,
    latestRootUserMessageId: roots.at(-1)?.uuid,
  });
}

function matchesProof(proof: TurnBindingProof): (root: SessionMessage) => boolean {
  const token = proof.recoveryToken.trim();
  if (token) return (root) => root.uuid === token;
  const key = decodeBase64Url(proof.legacyTextHmacKey);
  const digest = decodeBase64Url(proof.legacyTextHmacDigest);
  // An empty key or digest proves nothing; fail closed rather than match by accident.
  if (key.length === 0 || digest.length === 0) return () => false;
  return (root) => {
    const text = pureTextOf(root);
    if (text === undefined) return false;
    const actual = createHmac('sha256', key).update(text, 'utf8').digest();
    return actual.length === digest.length && timingSafeEqual(actual, digest);
  };
}

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function decodeBase64Url(value: string | undefined): Buffer {
  const trimmed = value?.trim() ?? '';
  return BASE64URL.test(trimmed) ? Buffer.from(trimmed, 'base64url') : Buffer.alloc(0);
}

export interface CorrelationLookup {
  providerSessionId: string;
  cwd: string;
  /** The uuid sent on the outbound SDK user message. */
  correlationId: string;
  /** The child's CLAUDE_CONFIG_DIR when it differs from the sidecar's own. */
  claudeConfigDir?: string | undefined;
}

/**
 * The live identity barrier's transcript read: the root user message whose uuid is the prompt's
 * correlation id. Throws TurnBindingResolutionError with reason 'absent' while the transcript does not
 * have it yet (the caller retries) and 'ambiguous' when it can never be decided.
 */
export async function resolveTurnByCorrelationId(
  lookup: CorrelationLookup,
  sdk: SessionSdk = sessionSdkForConfigDir(lookup.claudeConfigDir),
): Promise<ResolvedTurnBinding> {
  const messages = await readTranscript(sdk, lookup.providerSessionId, lookup.cwd);
  return resolveTurnBinding(messages, { recoveryToken: lookup.correlationId });
}
