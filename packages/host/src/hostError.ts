import type { HostErrorCode, HostErrorDetail } from '@outrigger/host-api';

/**
 * An error with the API's stable code. Any layer may throw it; the HTTP layer turns it into
 * `{error: {code, message, details?}}` with the code's status. Messages never carry prompt text,
 * tool input or secrets.
 */
export class HostError extends Error {
  readonly code: HostErrorCode;
  readonly details: readonly HostErrorDetail[] | undefined;
  /** `already_continued`: the session the error names (the body's `sessionId`). */
  readonly sessionId: string | undefined;

  constructor(
    code: HostErrorCode,
    message: string,
    details?: readonly HostErrorDetail[],
    options: { sessionId?: string } = {},
  ) {
    super(message);
    this.name = 'HostError';
    this.code = code;
    this.details = details;
    this.sessionId = options.sessionId;
  }
}
