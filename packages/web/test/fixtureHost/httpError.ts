import type { HostErrorCode, HostErrorDetail } from '@outrigger/host-api';

/** A refusal the fixture host answers as the contract's `{error: {code, message, details}}`. */
export class HttpError extends Error {
  readonly code: HostErrorCode;
  readonly details: readonly HostErrorDetail[];
  /** `already_continued`: the session that continues it. */
  readonly sessionId: string | undefined;
  constructor(code: HostErrorCode, message: string, details: readonly HostErrorDetail[] = [], sessionId?: string) {
    super(message);
    this.code = code;
    this.details = details;
    this.sessionId = sessionId;
  }
}
