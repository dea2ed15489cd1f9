/**
 * One line of `outrigger doctor`. `note` is for what is worth knowing but works (no credential: the demo
 * model answers); only `FAIL` makes the exit code 1.
 */
export type CheckStatus = 'ok' | 'note' | 'FAIL';

export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

export function ok(name: string, detail: string): CheckResult {
  return { name, status: 'ok', detail };
}

export function note(name: string, detail: string): CheckResult {
  return { name, status: 'note', detail };
}

export function fail(name: string, detail: string): CheckResult {
  return { name, status: 'FAIL', detail };
}

/** `ok    node        v24.1.0 (needs >= 22.18.0)`: status and name in columns, so a FAIL stands out. */
export function formatChecks(results: readonly CheckResult[]): string {
  const width = Math.max(0, ...results.map((result) => result.name.length));
  return results
    .map((result) => `${result.status.padEnd(6)}${result.name.padEnd(width + 2)}${result.detail}\n`)
    .join('');
}

export function anyFailed(results: readonly CheckResult[]): boolean {
  return results.some((result) => result.status === 'FAIL');
}
