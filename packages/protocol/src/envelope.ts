import { z } from 'zod';
import { isPlainObject } from './plainObject.ts';
import { requestTypes } from './requestTypes.ts';
import { PROTOCOL_VERSION, unsupportedVersionError } from './version.ts';

/** A request as a host writes it. */
export const requestEnvelopeSchema = z.object({
  version: z.literal(PROTOCOL_VERSION),
  id: z.string().trim().min(1).optional(),
  type: z.enum(requestTypes),
  payload: z.record(z.string(), z.unknown()).optional(),
});

/** Any line the sidecar writes: an event, or an `ok`/`error` response carrying the request's id. */
export const sidecarMessageSchema = z.looseObject({
  version: z.literal(PROTOCOL_VERSION),
  id: z.string().optional(),
  type: z.string().min(1),
  payload: z.unknown().optional(),
});

export type SidecarMessage = { version: typeof PROTOCOL_VERSION; id?: string; type: string; payload?: unknown };

export type ParsedSidecarLine =
  | { kind: 'blank' }
  | { kind: 'message'; message: SidecarMessage }
  | { kind: 'invalid'; error: string };

/** The host-side counterpart of `parseRequestLine`: version 10 and a non-empty type, or a reason why not. */
export function parseSidecarLine(line: string): ParsedSidecarLine {
  if (line.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'invalid', error: 'sidecar output is not valid JSON' };
  }
  if (!isPlainObject(value)) return { kind: 'invalid', error: 'sidecar output must be an object' };
  const { version, id, type, payload } = value;
  if (version !== PROTOCOL_VERSION) return { kind: 'invalid', error: unsupportedVersionError(version) };
  if (typeof type !== 'string' || type === '') return { kind: 'invalid', error: 'sidecar event type is required' };
  if (id !== undefined && typeof id !== 'string')
    return { kind: 'invalid', error: 'sidecar event id must be a string' };
  const message: SidecarMessage = { version: PROTOCOL_VERSION, type };
  if (id !== undefined) message.id = id;
  if (payload !== undefined) message.payload = payload;
  return { kind: 'message', message };
}
