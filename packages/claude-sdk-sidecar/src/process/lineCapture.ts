import type { Readable } from 'node:stream';

export interface LineCaptureOptions {
  /** The oldest lines are dropped past this many. */
  maxLines: number;
  /** Longer lines are cut here, so one runaway write cannot hold the memory a bounded buffer promises to. */
  maxLineLength: number;
  /** Called with each line as it is kept (cut like the kept copy). */
  onLine?: (line: string) => void;
}

/**
 * Collects the lines of a text stream into a bounded array that stays the same object as it fills, so a
 * reader may hold on to it. A last line without a newline is kept once the stream ends. A read error ends
 * the capture: what was read stays.
 */
export function captureLines(stream: Readable, options: LineCaptureOptions): readonly string[] {
  const lines: string[] = [];
  let partial = '';
  const keep = (whole: string): void => {
    const line = whole.length > options.maxLineLength ? whole.slice(0, options.maxLineLength) : whole;
    lines.push(line);
    if (lines.length > options.maxLines) lines.splice(0, lines.length - options.maxLines);
    options.onLine?.(line);
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) keep(line);
    if (partial.length > options.maxLineLength) partial = partial.slice(0, options.maxLineLength);
  });
  stream.on('error', () => undefined);
  stream.on('end', () => {
    if (partial !== '') keep(partial);
    partial = '';
  });
  return lines;
}
