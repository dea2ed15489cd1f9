export interface CanonicalJsonLimits {
  /** Deepest allowed nesting of objects and arrays (a scalar has depth 0). */
  readonly maxDepth?: number;
  /** Largest allowed UTF-8 size of the result. */
  readonly maxBytes?: number;
}

class NotCanonical extends Error {}

/**
 * JSON with object keys sorted, so two values that differ only in key order serialise identically.
 * Returns undefined, never throws, when the value is not plain JSON data (cycles, functions, non-finite
 * numbers, class instances) or exceeds the limits: callers treat that as "no match" and fail closed.
 */
export function canonicalJson(value: unknown, limits: CanonicalJsonLimits = {}): string | undefined {
  const maxDepth = limits.maxDepth ?? Number.POSITIVE_INFINITY;
  const maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  const ancestors = new Set<object>();
  let length = 0;

  const emit = (text: string): string => {
    length += text.length;
    // A string is never shorter in UTF-8 bytes than in UTF-16 units, so this stops oversized input early.
    if (length > maxBytes) throw new NotCanonical();
    return text;
  };

  const encode = (node: unknown, depth: number): string => {
    if (node === null || typeof node === 'boolean' || typeof node === 'string') return emit(JSON.stringify(node));
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) throw new NotCanonical();
      return emit(JSON.stringify(node));
    }
    if (typeof node !== 'object' || depth >= maxDepth || ancestors.has(node)) throw new NotCanonical();
    ancestors.add(node);
    let text: string;
    if (Array.isArray(node)) {
      text = `[${node.map((item) => encode(item, depth + 1)).join(',')}]`;
    } else {
      const prototype = Object.getPrototypeOf(node);
      if (prototype !== Object.prototype && prototype !== null) throw new NotCanonical();
      const record = node as Record<string, unknown>;
      const members = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort()
        .map((key) => `${emit(JSON.stringify(key))}:${encode(record[key], depth + 1)}`);
      text = `{${members.join(',')}}`;
    }
    ancestors.delete(node);
    return text;
  };

  try {
    const text = encode(value, 0);
    return Buffer.byteLength(text) > maxBytes ? undefined : text;
  } catch (error) {
    if (error instanceof NotCanonical || error instanceof RangeError) return undefined;
    throw error;
  }
}
