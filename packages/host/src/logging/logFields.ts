/**
 * The only fields a host log record may carry. Anything else a caller passes is dropped (its name is kept in
 * `droppedFields`), so a prompt, a tool input or a credential can only reach a log through a field named
 * here, and every string in these fields still goes through `redactSecrets`.
 */
/** Identities: never redacted (ids by construction), only cut to a sane length. */
const idLogFields = ['sessionId', 'turnId', 'requestId', 'toolUseId', 'providerTurnId', 'providerSessionId'] as const;

const allowedLogFields = [
  ...idLogFields,
  // HTTP
  'method',
  'route',
  'status',
  'durationMs',
  'bytes',
  'limit',
  // errors
  'code',
  'errorName',
  'stack',
  // processes
  'pid',
  'exitCode',
  'signal',
  'stderrTail',
  'stderrTailChars',
  'sidecarPid',
  'generation',
  'prefix',
  // host lifecycle
  'version',
  'host',
  'port',
  'dataDir',
  'file',
  'modelBackend',
  'reason',
  'tls',
  // the data directory's own entries whose modes were narrowed (paths relative to it, never user files)
  'narrowedPaths',
  // streams and events
  'stream',
  'type',
  'seq',
  'afterSeq',
  'count',
  'endReason',
  'pending',
  'canceled',
  'runningTurns',
  'messageLength',
  // the fixed text of a runtime record (\`logger.warn(fields, msg)\`), never user text
  'msg',
  // sidecar diagnostics (the sidecar's own secret-free payloads)
  'disposition',
  'stage',
  'severity',
  'outcome',
  'kind',
  'elapsedMs',
  'diagnostic',
] as const;
export type AllowedLogField = (typeof allowedLogFields)[number];

export type LogValue = string | number | boolean | null | undefined | LogValue[] | { [key: string]: LogValue };
export type LogFields = Partial<Record<AllowedLogField, LogValue>>;

const allowed: ReadonlySet<string> = new Set(allowedLogFields);
const idFields: ReadonlySet<string> = new Set(idLogFields);

/** Longest string kept in a log field; longer ones are cut (a log is no place for payloads). */
const MAX_STRING = 2000;
const MAX_DEPTH = 4;

/**
 * Replaces what looks like a credential: Anthropic keys, bearer values, `key=value` pairs whose key names a
 * secret, long opaque tokens (not UUIDs), and every exact value in `known` (the host token, keys from the
 * environment).
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const secret of known) if (secret.length >= 8) out = out.split(secret).join('[redacted]');
  return out
    .replace(/sk-ant-[A-Za-z0-9_-]+/g, '[redacted]')
    .replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]')
    .replace(
      /\b([A-Za-z_-]*(?:api[_-]?key|token|secret|password|passwd|authorization|cookie|credential)s?)(["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
      '$1$2[redacted]',
    )
    .replace(/[A-Za-z0-9+_=-]{32,}/g, (run) => (isUuid(run) || !/\d/.test(run) ? run : '[redacted]'));
}

function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}

/** The record a caller asked for, reduced to allowed fields with secret-looking strings redacted. */
export function sanitizeLogFields(fields: Record<string, unknown>, known: readonly string[]): Record<string, LogValue> {
  const out: Record<string, LogValue> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (!allowed.has(name)) {
      dropped.push(name);
      continue;
    }
    out[name] = idFields.has(name) && typeof value === 'string' ? value.slice(0, 200) : clean(value, known, 0);
  }
  if (dropped.length > 0) out.droppedFields = dropped;
  return out;
}

function clean(value: unknown, known: readonly string[], depth: number): LogValue {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
    return redactSecrets(text, known);
  }
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => clean(item, known, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, LogValue> = {};
    for (const [key, item] of Object.entries(value)) {
      // Inside a nested object a secret-named key loses its value whatever it looks like.
      out[key] = /key|token|secret|password|authorization|cookie|credential|prompt|input/i.test(key)
        ? '[redacted]'
        : clean(item, known, depth + 1);
    }
    return out;
  }
  return String(value);
}
