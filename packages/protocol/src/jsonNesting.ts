/** How deep a request line may nest arrays and objects; deeper lines are refused before they are parsed. */
export const MAX_REQUEST_NESTING = 128;

/**
 * Whether JSON text opens more than `limit` arrays/objects inside each other (brackets in strings do not
 * count). A scan, not a parse: a line nested thousands deep parses fine but overflows the stack of whatever
 * walks it later (String(), JSON.stringify, a schema), so it must be refused before it is ever a value.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The string value of member `name` of the top-level JSON object in `text` (the last one, as `JSON.parse`
 * keeps), or undefined when it is absent or not a string or the top level is not an object. Read by a
 * flat scan that steps over every other member's value by matching brackets, so it is safe on a line
 * nested too deep to parse: only the key and member strings are ever decoded. Inner values are skipped,
 * not validated, so a line broken only inside a member still yields the name it gives at the top level.
 */
export function topLevelStringMember(text: string, name: string): string | undefined {
  let index = skipWhitespace(text, 0);
  if (text.charCodeAt(index) !== OPEN_BRACE) return undefined;
  index = skipWhitespace(text, index + 1);
  let found: string | undefined;
  if (text.charCodeAt(index) !== CLOSE_BRACE) {
    for (;;) {
      const keyEnd = stringEnd(text, index);
      const key = keyEnd < 0 ? undefined : decodedString(text, index, keyEnd);
      if (key === undefined) return undefined;
      index = skipWhitespace(text, keyEnd);
      if (text.charCodeAt(index) !== COLON) return undefined;
      index = skipWhitespace(text, index + 1);
      const valueEnd = valueEndAt(text, index);
      if (valueEnd < 0) return undefined;
      if (key === name) found = text.charCodeAt(index) === QUOTE ? decodedString(text, index, valueEnd) : undefined;
      index = skipWhitespace(text, valueEnd);
      const code = text.charCodeAt(index);
      if (code === CLOSE_BRACE) break;
      if (code !== COMMA) return undefined;
      index = skipWhitespace(text, index + 1);
    }
  }
  return skipWhitespace(text, index + 1) === text.length ? found : undefined;
}

/** The index just past the string token opening at `start`, or -1 when none opens there or it never closes. */
function stringEnd(text: string, start: number): number {
  if (text.charCodeAt(start) !== QUOTE) return -1;
  for (let index = start + 1; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === BACKSLASH) index += 1;
    else if (code === QUOTE) return index + 1;
  }
  return -1;
}

/** The index just past the value opening at `start` (containers by bracket matching), or -1 when it is cut off. */
function valueEndAt(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return stringEnd(text, start);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let index = start; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (code === QUOTE) {
        index = stringEnd(text, index) - 1;
        if (index < 0) return -1;
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        depth += 1;
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) return index + 1;
      }
    }
    return -1;
  }
  let index = start;
  while (index < text.length && !SCALAR_ENDS.has(text.charCodeAt(index))) index += 1;
  return index === start ? -1 : index;
}

/** A string token is flat, so `JSON.parse` decodes its escapes exactly as the full parse would. */
function decodedString(text: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return undefined;
  }
}

function skipWhitespace(text: string, start: number): number {
  let index = start;
  while (index < text.length && JSON_WHITESPACE.has(text.charCodeAt(index))) index += 1;
  return index;
}

const COLON = 0x3a;
const COMMA = 0x2c;
/** JSON's whitespace only: `JSON.parse` refuses the other characters `trim()` removes. */
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const SCALAR_ENDS = new Set([...JSON_WHITESPACE, COMMA, CLOSE_BRACE, CLOSE_BRACKET]);
