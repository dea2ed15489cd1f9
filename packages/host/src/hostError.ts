import type { HostErrorBody, HostErrorCode, HostErrorDetail } from '@outrigger/host-api';

/** What an error's body says besides its code, message and details (`HostErrorBody`): what some codes name. */
export type HostErrorFields = Omit<HostErrorBody['error'], 'code' | 'message' | 'details'>;

/**
 * An error with the API's stable code. Any layer may throw it; the HTTP layer turns it into
 * `{error: {code, message, details?}}` with the code's status. Messages never carry prompt text,
 * tool input or secrets.
 */
export class HostError extends Error {
  readonly code: HostErrorCode;
  readonly details: readonly HostErrorDetail[] | undefined;
  /** The body's other fields, as they are (`sessionId` of `already_continued`). */
  readonly fields: HostErrorFields;

  constructor(
    code: HostErrorCode,
    message: string,
    details?: readonly HostErrorDetail[],
    fields: HostErrorFields = {},
  ) {
    super(message);
    this.name = 'HostError';
    this.code = code;
    this.details = details;
    this.fields = fields;
  }

  /** `already_continued`: the session the error names. */
  get sessionId(): string | undefined {
    return this.fields.sessionId;
  }
}
