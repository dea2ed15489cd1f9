/*
 * Readers for SDK message fields. The SDK's types describe what the CLI usually sends, but the
 * projector runs on whatever arrives, so every field is read defensively and cheaply.
 */

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

/** The value when it is a non-empty string, else undefined. */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function stringOrEmpty(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The text of message content: a string as it is, or the text blocks of a block array joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content) {
    const record = asRecord(block);
    if (record?.type === 'text' && typeof record.text === 'string') text += record.text;
  }
  return text;
}

/** How a background or delegated task ended, from the status Claude Code reports (`killed` is a stop). */
export function terminalTaskStatus(value: unknown): 'completed' | 'failed' | 'stopped' | undefined {
  if (value === 'completed' || value === 'failed' || value === 'stopped') return value;
  return value === 'killed' ? 'stopped' : undefined;
}
