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
