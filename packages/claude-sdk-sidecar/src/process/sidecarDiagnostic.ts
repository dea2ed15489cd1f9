import { isPlainObject } from '@outrigger/protocol';

/** One `PREFIX <one-line JSON object>` diagnostic record the sidecar wrote to stderr. */
export interface SidecarDiagnostic {
  readonly prefix: string;
  readonly record: Record<string, unknown>;
}

const DIAGNOSTIC_LINE = /^([A-Z][A-Z0-9_]*) (\{.*\})$/;

/** The diagnostic a stderr line carries, or undefined for any other line. */
export function parseSidecarDiagnostic(line: string): SidecarDiagnostic | undefined {
  const match = DIAGNOSTIC_LINE.exec(line);
  if (!match?.[1] || !match[2]) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(match[2]);
  } catch {
    return undefined;
  }
  return isPlainObject(record) ? { prefix: match[1], record } : undefined;
}
