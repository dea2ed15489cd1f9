import type { HostLogger, LogLevel } from './hostLogger.ts';
import type { LogFields } from './logFields.ts';
import type { RuntimeLogger } from './runtimeLogger.ts';

/**
 * The host logger in pino's call shape: `fields.event` names the record (else the message does), the
 * message is kept as `msg`, and every field still passes the allow-list and the redaction.
 */
export function pinoShaped(logger: HostLogger): RuntimeLogger {
  const at =
    (level: LogLevel) =>
    (fields: Record<string, unknown>, message: string): void => {
      const { event, ...rest } = fields;
      const name = typeof event === 'string' ? event : message;
      logger[level](name, { ...rest, ...(name === message ? {} : { msg: message }) } as LogFields);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
