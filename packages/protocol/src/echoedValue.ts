/** Longest string an error message repeats back to its sender. */
export const MAX_ECHOED_LENGTH = 64;

/**
 * A rejected value as an error message may repeat it: numbers, booleans and short printable strings as
 * they are; anything else only by its kind and size. An error never grows with its input, never walks a
 * structure (a deeply nested array overflows `String()`), and never carries control characters into a log.
 */
export function echoedValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') {
    if (value.length <= MAX_ECHOED_LENGTH && !hasControlCharacter(value)) return value;
    return `(a string of ${value.length} characters)`;
  }
  if (Array.isArray(value)) return `(an array of ${value.length} items)`;
  if (value === null) return 'null';
  return `(${typeof value === 'object' ? 'an object' : typeof value})`;
}

/** C0 and C1 controls, DEL, line/paragraph separators and bidi controls: none of them belongs in a message. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
    if (
      code === 0x2028 ||
      code === 0x2029 ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069)
    ) {
      return true;
    }
  }
  return false;
}
