const MAX_SUMMARY_CHARS = 100;

/** The input fields that say best what a tool call does, most telling first. */
const SUMMARY_FIELDS = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'subject'] as const;

/** One short line for a tool call: the telling input field, else the input as JSON; never multi-line. */
export function toolSummary(input: Record<string, unknown>): string {
  for (const field of SUMMARY_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value.trim() !== '') return clip(value);
  }
  const rest = Object.fromEntries(Object.entries(input).filter(([key]) => key !== 'toolName'));
  return Object.keys(rest).length === 0 ? '' : clip(JSON.stringify(rest));
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_SUMMARY_CHARS ? line : `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…`;
}
