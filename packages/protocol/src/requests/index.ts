import type { z } from 'zod';
import { isPlainObject } from '../plainObject.ts';
import type { RequestType } from '../requestTypes.ts';
import { interactiveDispositionPayloadSchema, submitInteractivePayloadSchema } from './interactive.ts';
import { applySettingsPayloadSchema, closePayloadSchema, startPayloadSchema } from './session.ts';
import {
  forkSessionPayloadSchema,
  inspectForkCheckpointsPayloadSchema,
  recoverTurnBindingPayloadSchema,
} from './stateless.ts';
import { cancelPayloadSchema, execPayloadSchema, guidePayloadSchema, stopTaskPayloadSchema } from './turn.ts';

export const requestPayloadSchemas = {
  start: startPayloadSchema,
  exec: execPayloadSchema,
  guide: guidePayloadSchema,
  cancel: cancelPayloadSchema,
  stop_task: stopTaskPayloadSchema,
  submit_interactive: submitInteractivePayloadSchema,
  interactive_disposition: interactiveDispositionPayloadSchema,
  apply_settings: applySettingsPayloadSchema,
  inspect_fork_checkpoints: inspectForkCheckpointsPayloadSchema,
  recover_turn_binding: recoverTurnBindingPayloadSchema,
  fork_session: forkSessionPayloadSchema,
  close: closePayloadSchema,
} as const satisfies Record<RequestType, z.ZodType>;

/** What the handler of `T` receives: trimmed, defaulted, normalised. */
export type RequestPayload<T extends RequestType> = z.output<(typeof requestPayloadSchemas)[T]>;
/** What a host may send for `T`. */
export type RequestPayloadInput<T extends RequestType> = z.input<(typeof requestPayloadSchemas)[T]>;

export type ParsedRequestPayload<T extends RequestType> =
  | { ok: true; value: RequestPayload<T> }
  | { ok: false; error: string };

/** Every failure message names the request and the field (schemas set them), so it can go to the host as is. */
export function parseRequestPayload<T extends RequestType>(type: T, payload: unknown): ParsedRequestPayload<T> {
  const schema = requestPayloadSchemas[type] as unknown as z.ZodType<RequestPayload<T>>;
  if (payload !== undefined && !isPlainObject(payload)) {
    return { ok: false, error: 'sidecar request payload must be an object' };
  }
  const result = schema.safeParse(payload ?? {});
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  return { ok: false, error: issue?.message ?? `${type} payload is invalid` };
}
