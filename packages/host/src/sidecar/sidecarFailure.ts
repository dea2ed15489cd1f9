import type { TurnError } from '@outrigger/host-api';
import { SidecarRequestError } from '@outrigger/protocol';
import { HostError } from '../hostError.ts';
import { errorName } from '../logging/errorName.ts';
import { SidecarUnavailableError } from './sidecarSupervisor.ts';

/**
 * Why a sidecar request did not succeed, as a session must act on it. Only `refused` is an answer of the
 * sidecar; after `timed_out`, `aborted` or `unexpected_response` the request may still have taken effect.
 * `stage` and `deliveryDisposition` stay as the sidecar wrote them: a `consumption` stage can answer a
 * `close` or an `apply_settings` as well as a `cancel`, and only the cancel reads it as its drain running out.
 */
export type SidecarFailure =
  /** No sidecar took it, or the one that did died before answering: the exit report says what became of it. */
  | { readonly kind: 'gone'; readonly message: string }
  | {
      readonly kind: 'refused';
      readonly message: string;
      readonly stage: string | undefined;
      readonly deliveryDisposition: string | undefined;
    }
  | { readonly kind: 'timed_out'; readonly message: string }
  | { readonly kind: 'aborted'; readonly message: string }
  | { readonly kind: 'unexpected_response'; readonly message: string }
  /** Not a sidecar failure at all (a `HostError` thrown on the way, a bug). */
  | { readonly kind: 'other'; readonly error: unknown };

export function classifySidecarFailure(error: unknown): SidecarFailure {
  if (error instanceof SidecarUnavailableError) return { kind: 'gone', message: error.message };
  if (!(error instanceof SidecarRequestError)) return { kind: 'other', error };
  const { message } = error;
  switch (error.reason) {
    case 'closed':
      return { kind: 'gone', message };
    case 'error_response':
      return { kind: 'refused', message, stage: error.stage, deliveryDisposition: error.deliveryDisposition };
    case 'timeout':
      return { kind: 'timed_out', message };
    case 'aborted':
      return { kind: 'aborted', message };
    case 'unexpected_response':
      return { kind: 'unexpected_response', message };
  }
}

/** True when a request failed because its sidecar is gone (so its outcome is whatever the exit says). */
export function isSidecarGone(error: unknown): boolean {
  return classifySidecarFailure(error).kind === 'gone';
}

/** What the API says when the host could not do `what` for want of the sidecar. */
export function hostErrorOf(failure: SidecarFailure, what: string): HostError {
  if (failure.kind !== 'other') return new HostError('sidecar_unavailable', `could not ${what}: ${failure.message}`);
  return failure.error instanceof HostError ? failure.error : new HostError('internal', `could not ${what}`);
}

/** A queued turn the sidecar could not start ends with this. */
export function turnErrorOf(failure: SidecarFailure): TurnError {
  const error = hostErrorOf(failure, 'start the turn');
  return { message: error.message, code: error.code, apiErrorStatus: null };
}

/** The error's name for a log record; a failed sidecar request also says why it failed. */
export function failureName(error: unknown): string {
  return error instanceof SidecarRequestError ? `SidecarRequestError:${error.reason}` : errorName(error);
}
