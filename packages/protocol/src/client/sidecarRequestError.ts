import type { RequestType } from '../requestTypes.ts';

/**
 * Why a request did not succeed. Only `error_response` is an answer from the sidecar; after a
 * `timeout` or `closed` the outcome is unknown and the request must not be assumed undone.
 */
export type SidecarRequestFailure = 'error_response' | 'unexpected_response' | 'timeout' | 'aborted' | 'closed';

export class SidecarRequestError extends Error {
  override readonly name = 'SidecarRequestError';
  readonly reason: SidecarRequestFailure;
  readonly requestId: string;
  readonly requestType: RequestType;
  readonly stage: string | undefined;
  readonly deliveryDisposition: string | undefined;

  constructor(
    message: string,
    details: {
      reason: SidecarRequestFailure;
      requestId: string;
      requestType: RequestType;
      stage?: string;
      deliveryDisposition?: string;
    },
  ) {
    super(message);
    this.reason = details.reason;
    this.requestId = details.requestId;
    this.requestType = details.requestType;
    this.stage = details.stage;
    this.deliveryDisposition = details.deliveryDisposition;
  }
}
