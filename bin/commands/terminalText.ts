/**
 * Text on its way to the terminal. Everything the chat prints is a list of segments; the terminal console
 * neutralises control characters in every segment's text (`sanitizeTerminalText`) and only then applies the
 * segment's style, so text from the model, a tool or the sidecar can neither move the cursor, erase what
 * is shown nor restyle it — whatever piece of the chat it ends up in.
 */

export type TextStyle = 'dim' | 'bold' | 'italic' | 'underline' | 'green' | 'red' | 'yellow' | 'cyan';

export interface StyledText {
  readonly text: string;
  readonly style: TextStyle | readonly TextStyle[];
}

export type Segment = string | StyledText;

export function styled(style: TextStyle | readonly TextStyle[], text: string): StyledText {
  return { style, text };
}

export function segmentText(segment: Segment): string {
  return typeof segment === 'string' ? segment : segment.text;
}

/** The characters the segments show, without any styling. */
export function plainText(segments: readonly Segment[]): string {
  return segments.map(segmentText).join('');
}

/** C0 controls but tab and newline, and DEL. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const C0_CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;
/** C1 controls (0x9b is a one-byte CSI) and the bidi controls that reorder what the terminal shows. */
const OTHER_CONTROL = /[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text with every control character but tab and newline replaced by a visible stand-in: C0 controls
 * and DEL by their Unicode control pictures (ESC shows as ␛), C1 and bidi controls by U+FFFD. No escape
 * sequence reaches the terminal, and nothing printable is dropped: a sequence that would erase or restyle
 * text shows up as `␛[2K` instead of hiding part of a command the user is asked to approve. CRLF becomes
 * a plain newline.
 */
export function sanitizeTerminalText(text: string): string {
  return text
    .replaceAll('\r\n', '\n')
    .replace(C0_CONTROL, (control) => String.fromCharCode(control === '\x7f' ? 0x2421 : 0x2400 + control.charCodeAt(0)))
    .replace(OTHER_CONTROL, '\ufffd');
}
