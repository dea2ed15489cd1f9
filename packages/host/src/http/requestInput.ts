import { nestsDeeperThan } from '@outrigger/protocol';
import type { z } from 'zod';
import { HostError } from '../hostError.ts';

/**
 * How deep a JSON body may nest. JSON.parse takes any depth, but whatever walks the value later (a schema's
 * JSON.stringify, the store's) overflows the stack thousands of levels down: such a body is refused first.
 */
const MAX_BODY_NESTING = 64;

/**
 * Reads a JSON body of at most `maxBytes` bytes and validates it. The size is enforced before anything is
 * parsed: a `Content-Length` over the limit is refused at once, and a chunked body is cut off as soon as
 * it passes the limit. An empty body reads as `{}` (so `cancel` needs none); anything else must be
 * `application/json`. The bytes come from `body`: the node request itself where there is one, since
 * `request.body` makes the node adapter build a full `Request` and a web stream over the node stream,
 * about 0.5 ms on the way of every turn (docs/performance.md).
 */
export async function readJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  maxBytes: number,
  body: AsyncIterable<Uint8Array> | null = request.body,
): Promise<z.output<S>> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readLimited(body, maxBytes);
  let value: unknown = {};
  if (bytes.byteLength > 0) {
    const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      throw new HostError('unsupported_media_type', 'the body must be application/json');
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      if (nestsDeeperThan(text, MAX_BODY_NESTING)) {
        throw new HostError('bad_request', `the body nests deeper than ${MAX_BODY_NESTING} levels`);
      }
      value = JSON.parse(text);
    } catch (error) {
      if (error instanceof HostError) throw error;
      // The parser's message quotes the input; it is neither shown nor logged.
      throw new HostError('bad_request', 'the body is not valid JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new HostError('bad_request', 'the body must be a JSON object');
    }
  }
  return validate(schema, value, 'body');
}

/** Validates the query string; a name given twice is refused rather than silently picked. */
export function readQuery<S extends z.ZodType>(url: URL, schema: S): z.output<S> {
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (Object.hasOwn(query, name)) {
      throw new HostError('validation_failed', 'the query string is invalid', [
        { path: name, message: 'given more than once' },
      ]);
    }
    query[name] = value;
  }
  return validate(schema, query, 'query string');
}

function validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    // An unknown field is named by its own path, one detail each, so a client can point at it.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'unknown field' }));
    }
    return [{ path: path.join('.'), message: issue.message }];
  });
  throw new HostError('validation_failed', `the ${what} is invalid`, details);
}

async function readLimited(body: AsyncIterable<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Leaving the loop early cancels a web stream and destroys a node one: the rest is never read.
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): HostError {
  return new HostError('payload_too_large', `the body may have at most ${maxBytes} bytes`);
}
