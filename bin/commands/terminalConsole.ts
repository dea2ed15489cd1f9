import { clearScreenDown, createInterface, cursorTo, type Interface, moveCursor } from 'node:readline';
import { type Readable, Writable } from 'node:stream';
import { styleText } from 'node:util';
import { type Segment, sanitizeTerminalText } from './terminalText.ts';

export interface TerminalOutput {
  output: NodeJS.WritableStream & { columns?: number };
  /** Styles become colours and attributes; otherwise only the text is written. */
  color: boolean;
}

export interface TerminalInput {
  input: Readable;
  /** A person at a terminal: line editing, drawn prompts, typed text held back while output runs. */
  terminal: boolean;
  /** A line was entered. */
  onLine(line: string): void;
  /** Ctrl-C on the keyboard (in a terminal; piped input gets a real SIGINT instead). */
  onInterrupt(): void;
  /**
   * Input ended: Ctrl-D on an empty line, EOF, or `close()`. For a Ctrl-D at a terminal, `'keep-reading'`
   * keeps the keyboard attached (raw, so Ctrl-C stays a key and typing is not echoed into the output) while
   * the end is dealt with; `close()` ends it for good.
   */
  onEnd(): 'keep-reading' | undefined;
}

/**
 * The chat's one way to the terminal. Every segment passes `sanitizeTerminalText` before its style is
 * applied, and the input line is kept apart from the output: while no prompt is shown (a turn is
 * running) what the user types is not echoed into the answer but kept, and shown with the next prompt;
 * output that arrives while a prompt is shown (a background report, events during an approval) takes
 * the prompt away, prints, and draws it again with whatever was typed.
 */
export class TerminalConsole {
  readonly #output: TerminalOutput;
  #readline: Interface | undefined;
  /** The prompt wanted on screen, undefined while none is asked for. */
  #prompt: string | undefined;
  /** Whether the prompt and the typed line are on screen now; readline's own writes pass only then. */
  #shown = false;
  #atLineStart = true;
  #ended = false;
  #closing = false;

  constructor(output: TerminalOutput) {
    this.#output = output;
  }

  /** Whether input has ended (or was never listened to and `close()` was called). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Starts reading lines. Until then the console only writes. */
  listen(input: TerminalInput): void {
    if (this.#readline || this.#ended) throw new Error('the console already listens or has ended');
    this.#attach(input, []);
  }

  #attach(input: TerminalInput, history: string[]): void {
    let kept = history;
    const real = this.#output.output;
    const gate = new Writable({
      write: (chunk, _encoding, callback) => {
        if (this.#shown) real.write(chunk);
        callback();
      },
    });
    // readline lays the input line out by the terminal's width and redraws it on resize.
    Object.defineProperty(gate, 'columns', { get: () => real.columns });
    const onResize = () => gate.emit('resize');
    if (input.terminal) real.on('resize', onResize);
    const readline = createInterface({ input: input.input, output: gate, terminal: input.terminal, history });
    this.#readline = readline;
    readline.on('history', (lines) => {
      kept = lines;
    });
    readline.on('line', (line) => {
      // readline has ended the input line on screen itself (through the gate, when shown).
      if (this.#shown) this.#atLineStart = true;
      this.#shown = false;
      this.#prompt = undefined;
      input.onLine(line);
    });
    readline.on('SIGINT', () => {
      if (this.#shown && readline.line !== '') {
        // Ctrl-C with text typed at a prompt clears the text, as in a shell.
        readline.write(null, { ctrl: true, name: 'e' });
        readline.write(null, { ctrl: true, name: 'u' });
        return;
      }
      input.onInterrupt();
    });
    readline.on('close', () => {
      real.off('resize', onResize);
      if (this.#shown) {
        this.#shown = false;
        this.#writeOut('\n');
        this.#atLineStart = true;
      }
      this.#prompt = undefined;
      const canKeep = input.terminal && !this.#closing && !input.input.readableEnded;
      if (input.onEnd() === 'keep-reading' && canKeep) {
        this.#attach(input, kept);
        return;
      }
      this.#ended = true;
    });
  }

  /** Writes segments: control characters neutralised first, then styled. */
  write(segments: readonly Segment[]): void {
    let text = '';
    let last = '';
    for (const segment of segments) {
      const safe = sanitizeTerminalText(typeof segment === 'string' ? segment : segment.text);
      if (safe === '') continue;
      last = safe;
      text +=
        typeof segment === 'string' || !this.#output.color
          ? safe
          : styleText(segment.style as Parameters<typeof styleText>[0], safe, { validateStream: false });
    }
    if (text === '') return;
    if (this.#shown) this.#hidePrompt();
    this.#writeOut(text);
    this.#atLineStart = last.endsWith('\n');
    if (this.#prompt !== undefined && this.#atLineStart) this.#drawPrompt();
  }

  /**
   * Shows a prompt for the next line, on a line of its own, after whatever was typed ahead. Does nothing
   * once input has ended, and without a terminal (piped input shows no prompts).
   */
  prompt(text: string): void {
    if (this.#ended || !this.#readline?.terminal) return;
    this.#prompt = sanitizeTerminalText(text).replaceAll('\n', ' ');
    if (!this.#atLineStart) {
      this.#writeOut('\n');
      this.#atLineStart = true;
    }
    this.#drawPrompt();
  }

  /**
   * Stops drawing the prompt (its question no longer waits): as a shell does with Ctrl-C, the prompt
   * stays on screen as a record and its line ends, so later output neither erases nor repeats it.
   */
  withdrawPrompt(): void {
    this.#prompt = undefined;
    if (!this.#shown) return;
    this.#shown = false;
    this.#writeOut('\n');
    this.#atLineStart = true;
  }

  /** Stops reading input (ending it); writing still works. */
  close(): void {
    this.#closing = true;
    if (this.#readline && !this.#ended) this.#readline.close();
    this.#ended = true;
  }

  #drawPrompt(): void {
    const readline = this.#readline;
    if (!readline || this.#ended || this.#prompt === undefined) return;
    readline.setPrompt(this.#prompt);
    // readline redraws relative to where it last left the cursor; the prompt starts on a fresh line now.
    (readline as unknown as { prevRows: number }).prevRows = 0;
    this.#shown = true;
    readline.prompt(true);
  }

  #hidePrompt(): void {
    const { output } = this.#output;
    moveCursor(output, 0, -(this.#readline?.getCursorPos().rows ?? 0));
    cursorTo(output, 0);
    clearScreenDown(output);
    this.#shown = false;
    this.#atLineStart = true;
  }

  #writeOut(text: string): void {
    this.#output.output.write(text);
  }
}
