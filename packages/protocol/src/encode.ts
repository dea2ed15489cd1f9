import type { RequestType } from './requestTypes.ts';
import { PROTOCOL_VERSION } from './version.ts';

/*
 * Hot path: these run for every line the sidecar writes, so they build the envelope by hand
 * (key order version, id?, type, payload?) and never validate. Validation belongs to receivers.
 * Each returns one JSON line without the trailing newline; the transport adds it.
 */

const ENVELOPE_START = `{"version":${PROTOCOL_VERSION},`;

export type ErrorResponseExtra = { stage?: string; deliveryDisposition?: string };

export function encodeEvent(type: string, payload?: unknown): string {
  return encodeEnvelope(undefined, type, payload);
}

export function encodeOk(id: string | undefined, payload?: unknown): string {
  return encodeEnvelope(id, 'ok', payload);
}

/** `extra` contributes only string fields, as the original copies only string `stage`/`deliveryDisposition`. */
export function encodeError(id: string | undefined, error: string, extra?: ErrorResponseExtra): string {
  const payload: { error: string; deliveryDisposition?: string; stage?: string } = { error };
  if (typeof extra?.deliveryDisposition === 'string') payload.deliveryDisposition = extra.deliveryDisposition;
  if (typeof extra?.stage === 'string') payload.stage = extra.stage;
  return encodeEnvelope(id, 'error', payload);
}

export function encodeRequest(type: RequestType, payload?: Record<string, unknown>, id?: string): string {
  return encodeEnvelope(id, type, payload);
}

function encodeEnvelope(id: string | undefined, type: string, payload: unknown): string {
  const head =
    id === undefined
      ? `${ENVELOPE_START}"type":${JSON.stringify(type)}`
      : `${ENVELOPE_START}"id":${JSON.stringify(id)},"type":${JSON.stringify(type)}`;
  return payload === undefined ? `${head}}` : `${head},"payload":${JSON.stringify(payload)}}`;
}
