import { z } from 'zod';

/** A substring (case-sensitive) or a regular expression, as scenario data can spell it. */
export const textPatternSchema = z.union([
  z.string(),
  z
    .strictObject({ regex: z.string(), flags: z.string().optional() })
    .refine((pattern) => compiles(pattern.regex, pattern.flags), { message: 'not a valid regular expression' }),
]);

export type TextPattern = z.output<typeof textPatternSchema>;

const compiled = new WeakMap<object, RegExp>();

export function matchesTextPattern(pattern: TextPattern, text: string): boolean {
  if (typeof pattern === 'string') return text.includes(pattern);
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    // A global or sticky flag would make `test` stateful across requests.
    regex = new RegExp(pattern.regex, (pattern.flags ?? '').replace(/[gy]/g, ''));
    compiled.set(pattern, regex);
  }
  return regex.test(text);
}

function compiles(source: string, flags: string | undefined): boolean {
  try {
    new RegExp(source, flags);
    return true;
  } catch {
    return false;
  }
}
