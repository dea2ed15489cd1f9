import { type HostErrorBody, type HostErrorCode, type HostErrorDetail, hostErrorStatus } from '@outrigger/host-api';
import { HostError, type HostErrorFields } from '../hostError.ts';

/** An `{error: {code, message, details?, …fields}}` answer with the code's status. */
export function errorResponse(
  code: HostErrorCode,
  message: string,
  options: { details?: readonly HostErrorDetail[]; headers?: Record<string, string>; fields?: HostErrorFields } = {},
): Response {
  const body: HostErrorBody = { error: { code, message, ...options.fields } };
  if (options.details !== undefined && options.details.length > 0) body.error.details = [...options.details];
  return new Response(JSON.stringify(body), {
    status: hostErrorStatus[code],
    headers: { 'content-type': 'application/json; charset=utf-8', ...options.headers },
  });
}

/**
 * The answer for anything a handler threw: a `HostError` keeps its code and message (they are written to
 * be shown); anything else is a bug, answered as `internal` without its message, which may quote input.
 */
export function thrownErrorResponse(error: unknown): Response {
  if (error instanceof HostError) {
    return errorResponse(error.code, error.message, { details: error.details, fields: error.fields });
  }
  return errorResponse('internal', 'internal error; the host log has the details');
}
