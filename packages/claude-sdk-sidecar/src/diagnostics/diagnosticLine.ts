import { createHash } from 'node:crypto';

/**
 * Diagnostics leave the sidecar as `PREFIX <one-line JSON>` on stderr, the only stderr the host forwards.
 * Payloads are built from ids, counts, durations and enums only: prompt text, tool input, provider output
 * and credentials must never reach them. Error messages are fingerprinted unless this sidecar wrote them.
 */

/** A value a diagnostic payload may carry. Objects are allowed only for the structured error shapes below. */
export type DiagnosticValue = string | number | boolean | null | undefined | DiagnosticError;

export type DiagnosticPayload = { readonly [field: string]: DiagnosticValue };

export type DiagnosticSink = (line: string) => void;

const stderrSink: DiagnosticSink = (line) => {
  process.stderr.write(`${line}\n`);
};

let sink: DiagnosticSink = stderrSink;

/** Writes one diagnostic line. Never throws: a broken stderr must not break a cancel or a turn. */
export function writeDiagnosticLine(prefix: string, payload: DiagnosticPayload): void {
  try {
    sink(`${prefix} ${JSON.stringify(payload)}`);
  } catch {
    // Diagnostics are best effort by design.
  }
}

/**
 * Captures every diagnostic line written while `fn` runs, instead of writing them to stderr.
 * `fn` receives the live list, so it can assert on lines before it returns.
 */
export async function withDiagnosticSinkForTest<T>(fn: (lines: readonly string[]) => T | Promise<T>): Promise<T> {
  const lines: string[] = [];
  const previous = sink;
  sink = (line) => {
    lines.push(line);
  };
  try {
    return await fn(lines);
  } finally {
    sink = previous;
  }
}

/** Identifies an error without revealing its message, which may quote prompts, tool input or provider output. */
export interface ErrorFingerprint {
  readonly name: string;
  readonly code?: string | number;
  readonly status?: number;
  readonly messageLength: number;
  readonly messageFingerprint: string;
}

/**
 * An error as cancel diagnostics describe it (reference §3.4, `error{name,message}`): `message` is the
 * error's own text when it is known to be safe, else the fixed word `redacted` with a fingerprint beside it.
 */
export interface DiagnosticErrorMessage {
  readonly name: string;
  readonly message: string;
  readonly code?: string | number;
  readonly status?: number;
  readonly messageLength?: number;
  readonly messageFingerprint?: string;
}

export type DiagnosticError = ErrorFingerprint | DiagnosticErrorMessage;

/**
 * Marks an error class whose messages are written by this sidecar (fixed text plus ids), e.g.
 * `class QueryShutdownTimeoutError extends Error { readonly [diagnosticSafeMessage] = true; }`.
 */
export const diagnosticSafeMessage: unique symbol = Symbol('outrigger.diagnosticSafeMessage');

/** An error raised by this sidecar with a message of fixed text plus ids: logged verbatim. */
export class SidecarError extends Error {
  readonly [diagnosticSafeMessage] = true;
}

/** The first 12 hex digits of the text's sha256: tells two values apart without revealing either. */
export function textFingerprint(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** Codes and names are short identifiers (ECONNRESET, rate_limit_error, AbortError); dashes would admit keys. */
const codePattern = /^[A-Za-z0-9_]{1,64}$/;
const namePattern = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

export function fingerprintError(error: unknown): ErrorFingerprint {
  const message = error instanceof Error ? error.message : String(error);
  const fingerprint: {
    name: string;
    code?: string | number;
    status?: number;
    messageLength: number;
    messageFingerprint: string;
  } = {
    name: errorName(error),
    messageLength: message.length,
    messageFingerprint: textFingerprint(message),
  };
  if (isRecord(error)) {
    const { code, status } = error;
    if ((typeof code === 'string' && codePattern.test(code)) || (typeof code === 'number' && Number.isFinite(code))) {
      fingerprint.code = code;
    }
    if (typeof status === 'number' && Number.isInteger(status)) fingerprint.status = status;
  }
  return fingerprint;
}

/**
 * The SDK's own fixed texts for a Query that ends or refuses a control request (an interrupt, say). Only the
 * matched part is kept: what follows it (Claude Code's stderr tail after an exit code) may quote anything.
 */
const knownSdkMessages: readonly RegExp[] = [
  /^Query closed before (?:response received|initialize was sent|spawn)/,
  /^Claude Code process (?:exited with code -?\d+|terminated by signal [A-Z0-9]+|aborted by user)/,
  /^Connection aborted by user/,
  /^ProcessTransport is not ready for writing/,
  /^Not connected$/,
  /^(?:The operation was aborted|This operation was aborted|Operation aborted|aborted)\.?$/,
];

/**
 * `{name, message}` for every error, safe to log: this sidecar's own errors verbatim, the SDK's fixed texts
 * without their tails, anything else as `redacted` with a fingerprint (its text may quote prompts, tool
 * input or provider output).
 */
export function describeErrorForDiagnostic(error: unknown): DiagnosticErrorMessage {
  if (
    error instanceof Error &&
    (error as Partial<Record<typeof diagnosticSafeMessage, unknown>>)[diagnosticSafeMessage]
  ) {
    return { name: errorName(error), message: error.message };
  }
  const { name, code, status, messageLength, messageFingerprint } = fingerprintError(error);
  const text = error instanceof Error ? error.message : String(error);
  const known = knownSdkMessages.map((pattern) => pattern.exec(text)?.[0]).find((match) => match !== undefined);
  return {
    name,
    message: known ?? 'redacted',
    ...(code === undefined ? {} : { code }),
    ...(status === undefined ? {} : { status }),
    ...(known === text ? {} : { messageLength, messageFingerprint }),
  };
}

function errorName(error: unknown): string {
  if (error instanceof Error) return namePattern.test(error.name) ? error.name : 'Error';
  return typeof error;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
