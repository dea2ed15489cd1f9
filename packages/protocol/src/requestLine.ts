import { echoedValue } from './echoedValue.ts';
import { MAX_REQUEST_NESTING, nestsDeeperThan, topLevelStringMember } from './jsonNesting.ts';
import { isPlainObject } from './plainObject.ts';
import { isRequestType, type RequestType } from './requestTypes.ts';
import { PROTOCOL_VERSION, type ProtocolVersion, unsupportedVersionError } from './version.ts';

export type SidecarRequest = {
  version: ProtocolVersion;
  id?: string;
  type: RequestType;
  payload: Record<string, unknown>;
};

export type ParsedRequestLine =
  | { kind: 'blank' }
  | { kind: 'request'; request: SidecarRequest }
  | { kind: 'invalid'; error: string; id?: string };

/**
 * Validates one stdin line in the original's order, so the first failing rule decides the message.
 * Unlike the original, a rejected line that still names a usable id keeps it, so the caller's
 * waiter gets a correlated error instead of timing out.
 */
export function parseRequestLine(line: string): ParsedRequestLine {
  if (line.trim() === '') return { kind: 'blank' };
  if (nestsDeeperThan(line, MAX_REQUEST_NESTING)) {
    const error = `sidecar request nests deeper than ${MAX_REQUEST_NESTING} levels`;
    // Too deep to parse, but the top-level id is read by a flat scan so the caller's waiter is answered.
    const id = usableId(topLevelStringMember(line, 'id'));
    return id === undefined ? { kind: 'invalid', error } : { kind: 'invalid', error, id };
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'invalid', error: 'sidecar request is not valid JSON' };
  }
  const result = parseRequestValue(value);
  if (result.ok) return { kind: 'request', request: result.request };
  const id = correlationIdOf(value);
  return id === undefined ? { kind: 'invalid', error: result.error } : { kind: 'invalid', error: result.error, id };
}

export function parseRequestValue(
  value: unknown,
): { ok: true; request: SidecarRequest } | { ok: false; error: string } {
  if (!isPlainObject(value)) return { ok: false, error: 'sidecar request must be an object' };
  const { version, type, id, payload } = value;
  if (version !== PROTOCOL_VERSION) return { ok: false, error: unsupportedVersionError(version) };
  if (!isRequestType(type)) {
    return { ok: false, error: `unsupported request type ${typeof type === 'string' ? echoedValue(type) : ''}` };
  }
  if (id !== undefined && (typeof id !== 'string' || id.trim() === '')) {
    return { ok: false, error: 'sidecar request id must be a non-empty string' };
  }
  if (payload !== undefined && !isPlainObject(payload)) {
    return { ok: false, error: 'sidecar request payload must be an object' };
  }
  const body = payload ?? {};
  if (type === 'cancel') {
    const budgetError = cancelBudgetError(body);
    if (budgetError !== undefined) return { ok: false, error: budgetError };
  }
  const request: SidecarRequest =
    id === undefined
      ? { version: PROTOCOL_VERSION, type, payload: body }
      : { version: PROTOCOL_VERSION, id, type, payload: body };
  return { ok: true, request };
}

export function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function cancelBudgetError(payload: Record<string, unknown>): string | undefined {
  if (!isPositiveSafeInteger(payload.interruptTimeoutMs)) return 'cancel interruptTimeoutMs must be a positive integer';
  if (!isPositiveSafeInteger(payload.drainTimeoutMs)) return 'cancel drainTimeoutMs must be a positive integer';
  return undefined;
}

function correlationIdOf(value: unknown): string | undefined {
  return isPlainObject(value) ? usableId(value.id) : undefined;
}

/**
 * The id a rejected line is answered with: any non-empty string, even one the envelope refuses as blank
 * after trimming (row 5 of the checks), since that string is what the caller's waiter is keyed on.
 */
function usableId(id: unknown): string | undefined {
  return typeof id === 'string' && id !== '' ? id : undefined;
}
