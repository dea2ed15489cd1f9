import { z } from 'zod';
import { requiredText, text } from './fields.ts';

const PROVIDER_SESSION_REQUIRED = 'provider session id is required';

export const inspectForkCheckpointsPayloadSchema = z.object({
  providerSessionId: requiredText(PROVIDER_SESSION_REQUIRED),
  cwd: text(),
});

export type InspectForkCheckpointsPayload = z.output<typeof inspectForkCheckpointsPayloadSchema>;

export const recoverTurnBindingPayloadSchema = z.object({
  providerSessionId: requiredText(PROVIDER_SESSION_REQUIRED),
  cwd: text(),
  /** Opaque root user-message uuid; when non-empty the legacy HMAC fields are ignored. */
  recoveryToken: text(),
  /** base64url */
  legacyTextHmacKey: text(),
  /** base64url HMAC-SHA256(key, exact root text) */
  legacyTextHmacDigest: text(),
});

export type RecoverTurnBindingPayload = z.output<typeof recoverTurnBindingPayloadSchema>;

/**
 * Nothing is required here on purpose: missing ids are reported by the fork itself as a
 * `source_lookup` failure with `deliveryDisposition: "not_started"`, which hosts rely on.
 */
export const forkSessionPayloadSchema = z.object({
  providerSessionId: text(),
  providerTurnId: text(),
  /** Empty: the sidecar reads the source transcript to find the checkpoint. */
  providerCheckpointMessageId: text(),
  cwd: text(),
  title: text(),
});

export type ForkSessionPayload = z.output<typeof forkSessionPayloadSchema>;
