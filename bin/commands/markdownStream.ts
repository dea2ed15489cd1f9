import { type Segment, segmentText, styled, type TextStyle } from './terminalText.ts';

/** A thematic break (`---`). */
const RULE = '─'.repeat(40);

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_ROW = /^\s*\|/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])( *\1){2,} *$/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+/;
const BULLET = /^(\s*)[-*+][ \t]+(?=\S)/;
const ORDERED = /^(\s*)(\d{1,9}[.)])[ \t]+(?=\S)/;
const QUOTE = /^ {0,3}>[ \t]?/;
/** A line start that may still become a marker once more characters arrive. */
const UNDECIDED = /^(\s*|\s*[-*_+]( *[-*_])*\s*|\s*\d{1,9}[.)]?\s*| {0,3}#{1,6}| {0,3}`{1,2}| {0,3}~{1,2}| {0,3}>)$/;

/**
 * Markdown rendered for a terminal while it streams in: headings bold, bullets as •, numbered items,
 * block quotes, fenced code indented in a colour, `code`, **bold** and *italic* with their markers hidden,
 * tables aligned once complete. Text is passed on as soon as it is unambiguous; only a line's first few
 * characters (is this a heading? a fence?), a lone `*` or `\` at the end of a chunk, and table rows wait.
 */
export class MarkdownStream {
  #pending = '';
  #atLineStart = true;
  #inCode = false;
  #table: string[] = [];
  #lineStyle: TextStyle[] = [];
  #bold = false;
  #italic = false;
  #code = false;
  /** The last character emitted on this line; decides whether a `*` can open emphasis. */
  #previous = '';

  /** One line of inline markdown (a table cell), rendered whole. */
  static inline(text: string): Segment[] {
    const stream = new MarkdownStream();
    stream.#startLine([]);
    stream.#pending = text.replaceAll('\n', ' ');
    return stream.#drain(true);
  }

  /** The segments the text makes showable now. */
  push(text: string): Segment[] {
    this.#pending += text;
    return this.#drain(false);
  }

  /** Everything still held back, with an open table laid out and the last line ended. */
  end(): Segment[] {
    const out = this.#drain(true);
    if (this.#table.length > 0) out.push(...renderTable(this.#table.splice(0)));
    if (!this.#atLineStart) out.push('\n');
    this.#atLineStart = true;
    return out;
  }

  #drain(final: boolean): Segment[] {
    const out: Segment[] = [];
    while (this.#pending !== '') {
      const progressed = this.#atLineStart ? this.#lineStart(out, final) : this.#inline(out, final);
      if (!progressed) break;
    }
    return out;
  }

  /** Classifies a new line by its start. False when that needs more text. */
  #lineStart(out: Segment[], final: boolean): boolean {
    const newline = this.#pending.indexOf('\n');
    const complete = newline >= 0 || final;
    const line = newline >= 0 ? this.#pending.slice(0, newline) : this.#pending;
    const takeLine = () => {
      this.#pending = newline >= 0 ? this.#pending.slice(newline + 1) : '';
    };

    if (this.#table.length > 0) {
      if (!complete && (line === '' || TABLE_ROW.test(line) || /^\s*$/.test(line))) return false;
      if (TABLE_ROW.test(line)) {
        this.#table.push(line);
        takeLine();
        return true;
      }
      out.push(...renderTable(this.#table.splice(0)));
    }

    if (this.#inCode) {
      if (FENCE.test(line) || (!complete && /^ {0,3}[`~]{0,2}$/.test(line))) {
        if (!complete) return false;
        this.#inCode = false;
        takeLine();
        return true;
      }
      this.#startLine([]);
      out.push('  ');
      return true;
    }

    if (!complete && (UNDECIDED.test(line) || FENCE.test(line) || TABLE_ROW.test(line))) return false;
    if (FENCE.test(line)) {
      this.#inCode = true;
      takeLine();
      return true;
    }
    if (TABLE_ROW.test(line)) {
      this.#table.push(line);
      takeLine();
      return true;
    }
    if (THEMATIC_BREAK.test(line)) {
      out.push(styled('dim', RULE), '\n');
      takeLine();
      return true;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      this.#consume(heading[0].length);
      this.#startLine(heading[1] === '#' ? ['bold', 'underline'] : ['bold']);
      return true;
    }
    const bullet = BULLET.exec(line);
    if (bullet) {
      this.#consume(bullet[0].length);
      this.#startLine([]);
      out.push(`${bullet[1]}• `);
      return true;
    }
    const ordered = ORDERED.exec(line);
    if (ordered) {
      this.#consume(ordered[0].length);
      this.#startLine([]);
      out.push(`${ordered[1]}${ordered[2]} `);
      return true;
    }
    const quote = QUOTE.exec(line);
    if (quote) {
      this.#consume(quote[0].length);
      this.#startLine(['dim']);
      out.push(styled('dim', '│ '));
      return true;
    }
    this.#startLine([]);
    return true;
  }

  #startLine(style: TextStyle[]): void {
    this.#atLineStart = false;
    this.#lineStyle = style;
    this.#bold = false;
    this.#italic = false;
    this.#code = false;
    this.#previous = '';
  }

  #consume(count: number): void {
    this.#pending = this.#pending.slice(count);
  }

  /** Passes on the rest of the current line, hiding emphasis markers. False when it must wait. */
  #inline(out: Segment[], final: boolean): boolean {
    let text = '';
    const flush = () => {
      if (text !== '') out.push(this.#styled(text));
      text = '';
    };
    const pending = this.#pending;
    let at = 0;
    let waiting = false;
    while (at < pending.length) {
      const char = pending[at] as string;
      const next = pending[at + 1];
      if (char === '\n') {
        flush();
        out.push('\n');
        at++;
        this.#atLineStart = true;
        break;
      }
      if (this.#inCode) {
        text += char;
      } else if (this.#code) {
        if (char === '`') {
          flush();
          this.#code = false;
        } else {
          text += char;
        }
      } else if (char === '\\' && next === undefined && !final) {
        waiting = true;
        break;
      } else if (char === '\\' && next !== undefined && /[\\`*_#>|[\]()!+\-.~]/.test(next)) {
        text += next;
        at++;
      } else if (char === '`') {
        flush();
        this.#code = true;
      } else if (char === '*' && next === undefined && !final) {
        waiting = true;
        break;
      } else if (char === '*' && next === '*') {
        flush();
        this.#bold = !this.#bold;
        at++;
      } else if (char === '*' && this.#italic && this.#previous !== ' ') {
        flush();
        this.#italic = false;
      } else if (
        char === '*' &&
        !this.#italic &&
        next !== undefined &&
        !/\s/.test(next) &&
        /^$|[\s(]/.test(this.#previous)
      ) {
        flush();
        this.#italic = true;
      } else {
        text += char;
      }
      this.#previous = char;
      at++;
    }
    flush();
    this.#pending = pending.slice(at);
    return !waiting && (at > 0 || this.#atLineStart);
  }

  #styled(text: string): Segment {
    const style: TextStyle[] = [...this.#lineStyle];
    if (this.#inCode || this.#code) style.push('cyan');
    if (this.#bold) style.push('bold');
    if (this.#italic) style.push('italic');
    return style.length === 0 ? text : styled(style, text);
  }
}

/** A table's rows with cells padded to their column's width, the header bold and its rule drawn. */
function renderTable(rows: readonly string[]): Segment[] {
  const cells = rows.map(splitRow);
  const isSeparator = rows.map((row) => TABLE_SEPARATOR.test(row));
  const content = cells.filter((_row, index) => !isSeparator[index]);
  const rendered = content.map((row) => row.map((cell) => MarkdownStream.inline(cell)));
  const columns = Math.max(...rendered.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_unused, column) =>
    Math.max(...rendered.map((row) => textWidth(row[column] ?? []))),
  );
  const hasHeader = isSeparator[1] === true;
  const out: Segment[] = [];
  rendered.forEach((row, index) => {
    widths.forEach((width, column) => {
      const cell = row[column] ?? [];
      const segments = hasHeader && index === 0 ? cell.map((segment) => bolder(segment)) : cell;
      if (column > 0) out.push(styled('dim', ' │ '));
      out.push(...segments);
      if (column < widths.length - 1) out.push(' '.repeat(width - textWidth(cell)));
    });
    out.push('\n');
    if (hasHeader && index === 0) out.push(styled('dim', widths.map((width) => '─'.repeat(width)).join('─┼─')), '\n');
  });
  return out;
}

function splitRow(row: string): string[] {
  const trimmed = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function bolder(segment: Segment): Segment {
  if (typeof segment === 'string') return styled('bold', segment);
  const style = Array.isArray(segment.style) ? segment.style : [segment.style as TextStyle];
  return styled([...style, 'bold'], segment.text);
}

function textWidth(segments: readonly Segment[]): number {
  return segments.reduce((width, segment) => width + [...segmentText(segment)].length, 0);
}
