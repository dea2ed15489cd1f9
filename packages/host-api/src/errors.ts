import { z } from 'zod';

/**
 * Every error the API answers is `{error: {code, message}}` with a 4xx/5xx status. The code is stable
 * (clients branch on it); the message is for people and may change.
 */
export const hostErrorCodes = [
  /** 400: the body is not JSON, not an object, or the query string is malformed. */
  'bad_request',
  /** 400: the body or query parsed but a field is wrong; `details` names each field. */
  'validation_failed',
  /** 401: no token, or a wrong one. */
  'unauthorized',
  /** 403: a foreign `Origin`, or a `cwd` outside the allowed roots. */
  'forbidden',
  /** 421: the `Host` header is not the host's own address (DNS rebinding). */
  'misdirected_request',
  /** 404: no such session, turn, task, interaction or tool result, or no such route. */
  'not_found',
  /** 405: the route exists, not with this method (`Allow` lists the ones it has). */
  'method_not_allowed',
  /** 409: the request contradicts the state (a different answer already given, an SDK task edited, …). */
  'conflict',
  /** 409: the session was closed (`DELETE`); its history can be read and forked, not continued. */
  'session_closed',
  /** 409: the Claude Code transcript changed in the last minutes (it may be open in a terminal): fork it, or resume with `force`. */
  'history_in_use',
  /** 409: an Outrigger session already resumes that Claude Code session; `sessionId` names it. */
  'already_continued',
  /** 410: the interaction can no longer be answered (superseded by a cancel, a restart or a time-out). */
  'gone',
  /** 413: the body is larger than the route accepts. */
  'payload_too_large',
  /** 415: a body that is not `application/json`. */
  'unsupported_media_type',
  /** 503: the sidecar could not be started or did not answer; retrying later may work. */
  'sidecar_unavailable',
  /** 503: the store refused a write; nothing of the request was kept. */
  'store_unavailable',
  /** 503: git failed (not installed, a damaged shadow repository, a locked index); the message says which. */
  'git_unavailable',
  /** 500: a bug. The log has the details (never the prompt). */
  'internal',
] as const;
export type HostErrorCode = (typeof hostErrorCodes)[number];

export const hostErrorDetailSchema = z.object({
  /** Dotted path of the offending field, e.g. `content.0.source.data`; empty for the whole body. */
  path: z.string(),
  message: z.string(),
});
export type HostErrorDetail = z.output<typeof hostErrorDetailSchema>;

export const hostErrorBodySchema = z.object({
  error: z.object({
    code: z.enum(hostErrorCodes),
    message: z.string(),
    details: z.array(hostErrorDetailSchema).optional(),
    /** `already_continued`: the Outrigger session that already continues it. */
    sessionId: z.string().optional(),
  }),
});
export type HostErrorBody = z.output<typeof hostErrorBodySchema>;

/** The HTTP status that goes with each code. */
export const hostErrorStatus: Readonly<Record<HostErrorCode, number>> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  misdirected_request: 421,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  session_closed: 409,
  history_in_use: 409,
  already_continued: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  sidecar_unavailable: 503,
  store_unavailable: 503,
  git_unavailable: 503,
  internal: 500,
};
