/** What a log record says of an error: its class name only, never its message (which may quote user text). */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
