const MAX_SUMMARY_CHARS = 100;

/** The input fields that say best what a tool call does, most telling first. */
const SUMMARY_FIELDS = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'subject'] as const;

/** One short line for a tool call: the telling input field, else the input as JSON; never multi-line. */
export function toolSummary(input: Record<string, unknown>): string {
  const telling = tellingField(input);
  if (telling !== undefined) return clip(telling);
  const rest = withoutToolName(input);
  return Object.keys(rest).length === 0 ? '' : clip(JSON.stringify(rest));
}

/**
 * What a tool call is asked to do, for the approval prompt: the telling field's value as it is (every
 * line, nothing clipped: the user approves exactly this command or path), else the input as indented JSON.
 */
export function toolInputLines(input: Record<string, unknown>): string[] {
  const telling = tellingField(input);
  if (telling !== undefined) return telling.split('\n');
  const rest = withoutToolName(input);
  return Object.keys(rest).length === 0 ? [] : JSON.stringify(rest, null, 2).split('\n');
}

function tellingField(input: Record<string, unknown>): string | undefined {
  for (const field of SUMMARY_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return undefined;
}

function withoutToolName(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([key]) => key !== 'toolName'));
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_SUMMARY_CHARS ? line : `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…`;
}
