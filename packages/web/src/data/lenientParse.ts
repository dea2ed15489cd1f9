import type { z } from 'zod';

const warned = new Set<string>();

/**
 * A stream payload checked against the contract. A host a version apart may add or drop a field the
 * view does not need; dropping its whole event would freeze the screen (a sidebar stuck on "idle"),
 * so a payload that fails the check is still used as sent, and the mismatch is reported once per
 * event type on the console for whoever upgrades one side.
 */
export function lenientParse<S extends z.ZodType>(schema: S, data: unknown, label: string): z.output<S> | null {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  if (typeof data !== 'object' || data === null) return null;
  if (!warned.has(label)) {
    warned.add(label);
    const paths = parsed.error.issues.map((issue) => issue.path.join('.') || '(root)').join(', ');
    console.warn(`outrigger: a ${label} event differs from this UI's contract at ${paths}; using it as sent`);
  }
  return data as z.output<S>;
}

/**
 * A stream frame as a typed event of one stream's `schemas` (keyed by event type), or null for a type
 * this UI does not know or a payload that is not an object.
 */
export function eventOfFrame(
  schemas: Readonly<Record<string, z.ZodType>>,
  frame: { readonly type: string; readonly data: unknown },
  stream: string,
): { type: string; data: unknown } | null {
  const schema = Object.hasOwn(schemas, frame.type) ? schemas[frame.type] : undefined;
  if (schema === undefined) return null;
  const data = lenientParse(schema, frame.data, `${stream} ${frame.type}`);
  return data === null ? null : { type: frame.type, data };
}
