import { join } from 'node:path';
import { pino } from 'pino';
import { type LogFields, sanitizeLogFields } from './logFields.ts';
import { RotatingFile } from './rotatingFile.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * The host's structured log. A record is an event name (`http.request`, `sidecar.exited`, …) and allow-listed
 * fields (`logFields.ts`); there is no free-text message, so nothing a user typed can slip into one.
 */
export interface HostLogger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
  /** A logger whose records also carry these fields. */
  child(fields: LogFields): HostLogger;
  /** Values that must never appear in a record (tokens, keys); added as the host learns them. */
  addSecret(value: string): void;
  close(): void;
}

export interface HostLoggerOptions {
  level?: LogLevel;
  /** Where JSON lines go, each from its own level up (default: `level`); `createFileAndStderrLogger` builds the usual two. */
  sinks: readonly LogSink[];
  secrets?: readonly string[];
}

export interface LogSink {
  write(line: string): void;
  close?(): void;
  level?: LogLevel;
}

const levelOrder: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

function createHostLogger(options: HostLoggerOptions): HostLogger {
  const secrets = [...(options.secrets ?? [])];
  const sinks = options.sinks;
  const base = options.level ?? 'info';
  const levels = sinks.map((sink) => sink.level ?? base);
  const lowest = levelOrder.find((level) => levels.includes(level)) ?? base;
  const stream = pino.multistream(
    sinks.map((sink, index) => ({
      level: levels[index] ?? base,
      stream: { write: (line: string) => sink.write(line) },
    })),
  );
  const root = pino(
    {
      level: lowest,
      base: undefined,
      messageKey: 'event',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  const wrap = (logger: pino.Logger): HostLogger => {
    const emit =
      (level: LogLevel) =>
      (event: string, fields: LogFields = {}) => {
        if (!logger.isLevelEnabled(level)) return;
        logger[level](sanitizeLogFields(fields, secrets), event);
      };
    return {
      debug: emit('debug'),
      info: emit('info'),
      warn: emit('warn'),
      error: emit('error'),
      child: (fields) => wrap(logger.child(sanitizeLogFields(fields, secrets))),
      addSecret: (value) => {
        if (value !== '' && !secrets.includes(value)) secrets.push(value);
      },
      close: () => {
        for (const sink of sinks) sink.close?.();
      },
    };
  };
  return wrap(root);
}

/**
 * The daemon's log: JSON lines to `DATA/logs/host.log` (10 MB, four older files kept) from `level` up, and
 * to stderr from `stderrLevel` up (the terminal that runs `outrigger serve` shows warnings and errors).
 */
export function createFileAndStderrLogger(options: {
  dataDir: string;
  level?: LogLevel;
  stderr?: boolean;
  stderrLevel?: LogLevel;
  secrets?: readonly string[];
  maxFileBytes?: number;
  keepFiles?: number;
}): HostLogger {
  const file = new RotatingFile({
    path: join(options.dataDir, 'logs', 'host.log'),
    maxBytes: options.maxFileBytes ?? 10 * 1024 * 1024,
    keep: options.keepFiles ?? 4,
  });
  const stderr: LogSink = { write: (line) => process.stderr.write(line), level: options.stderrLevel ?? options.level };
  const sinks = [file, ...(options.stderr === false ? [] : [stderr])];
  return createHostLogger({ level: options.level, sinks, secrets: options.secrets });
}

/** Records collected in memory, for tests that assert what was (and was not) logged. */
export function createMemoryLogger(options: { level?: LogLevel; secrets?: readonly string[] } = {}): HostLogger & {
  readonly lines: string[];
  records(): Record<string, unknown>[];
} {
  const lines: string[] = [];
  const logger = createHostLogger({
    level: options.level ?? 'debug',
    sinks: [{ write: (line) => lines.push(line) }],
    secrets: options.secrets,
  });
  return Object.assign(logger, {
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  });
}

/** Throws nothing, writes nothing: for tests that do not look at the log. */
export const silentLogger: HostLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
  addSecret: () => undefined,
  close: () => undefined,
};

export function isLogLevel(value: string | undefined): value is LogLevel {
  return value === 'debug' || value === 'info' || value === 'warn' || value === 'error';
}
