/**
 * What the runtime (sessions, the sidecar supervisor) needs of a logger: pino's call shape
 * (`logger.warn(fields, message)`); `pinoShaped` puts the host's log behind it. Fields are allow-listed
 * ids, counts, codes and durations; never a prompt, tool input, model output or secret.
 */
export interface RuntimeLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface LogRecord {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** Keeps every record, for tests that assert what was logged (and what was not). */
export function recordingLogger(): RuntimeLogger & { readonly records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      records.push({ level, fields, message });
    };
  return { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
