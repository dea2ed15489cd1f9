/** One Server-Sent Events frame carrying a JSON payload, as the Messages API sends them. */
export function encodeSseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface SseFrame {
  event: string;
  data: unknown;
}

/** Parses a complete SSE body whose data lines are JSON (the inverse of `encodeSseEvent`). */
export function parseSseStream(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const raw of text.split(/\r?\n\r?\n/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of raw.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) frames.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return frames;
}
