import type { HostLogger, LogLevel } from './hostLogger.ts';
import type { LogFields } from './logFields.ts';

/** pino's call shape, `logger.warn(fields, message)`, as the runtime's modules log. */
export interface PinoShapedLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * The host logger in pino's call shape: `fields.event` names the record (else the message does), the
 * message is kept as `msg`, and every field still passes the allow-list and the redaction.
 */
export function pinoShaped(logger: HostLogger): PinoShapedLogger {
  const at =
    (level: LogLevel) =>
    (fields: Record<string, unknown>, message: string): void => {
      const { event, ...rest } = fields;
      const name = typeof event === 'string' ? event : message;
      logger[level](name, { ...rest, ...(name === message ? {} : { msg: message }) } as LogFields);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
