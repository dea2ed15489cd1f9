import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import { TerminalConsole } from './terminalConsole.ts';
import { styled } from './terminalText.ts';

/** A fake terminal: keys typed into `input`, everything shown collected from `output`. */
function setup(options: { color?: boolean; terminal?: boolean; keepReading?: () => boolean } = {}) {
  const input = new PassThrough();
  let shown = '';
  const output = Object.assign(
    new Writable({
      write(chunk, _encoding, callback) {
        shown += String(chunk);
        callback();
      },
    }),
    { columns: 80 },
  );
  const lines: string[] = [];
  const events: string[] = [];
  const terminalConsole = new TerminalConsole({ output, color: options.color ?? false });
  terminalConsole.listen({
    input,
    terminal: options.terminal ?? true,
    onLine: (line) => lines.push(line),
    onInterrupt: () => events.push('interrupt'),
    onEnd: () => {
      events.push('end');
      return options.keepReading?.() ? 'keep-reading' : undefined;
    },
  });
  const type = async (keys: string) => {
    input.write(keys);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    terminalConsole,
    type,
    lines,
    events,
    shown: () => shown,
    /** What was shown since the last call. */
    take: () => {
      const text = shown;
      shown = '';
      return text;
    },
  };
}

/** The visible text of terminal output: cursor and erase sequences dropped. */
function visible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: reading terminal output
  return text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
}

test('text typed while no prompt is shown is not echoed into the output; the next prompt shows it', async () => {
  const t = setup();
  t.terminalConsole.write(['The answer streams ']);
  await t.type('hello');
  t.terminalConsole.write(['on and on.\n']);
  assert.equal(visible(t.take()), 'The answer streams on and on.\n');
  t.terminalConsole.prompt('› ');
  assert.equal(visible(t.take()), '› hello');
  await t.type(' there\r');
  assert.deepEqual(t.lines, ['hello there']);
  assert.match(visible(t.take()), / there\r\n$/);
});

test('output while a prompt is shown takes the prompt away, prints, then draws it again with the typed text', async () => {
  const t = setup();
  t.terminalConsole.prompt('› ');
  await t.type('half typed');
  t.take();
  t.terminalConsole.write(['A background report.\n']);
  const shown = t.take();
  // The prompt line is erased (cursor to column 1, erase down), the report printed, the prompt redrawn.
  assert.ok(shown.startsWith('\x1b[1G\x1b[0J'), JSON.stringify(shown));
  assert.equal(visible(shown), 'A background report.\n› half typed');
  // Output that ends mid-line leaves the prompt away until the line is complete.
  t.terminalConsole.write(['Streaming…']);
  assert.equal(visible(t.take()), 'Streaming…');
  t.terminalConsole.write([' done.\n']);
  assert.equal(visible(t.take()), ' done.\n› half typed');
  await t.type('!\r');
  assert.deepEqual(t.lines, ['half typed!']);
});

test('a withdrawn prompt stays as a record, its line ended, and is not drawn again after later output', async () => {
  const t = setup();
  t.terminalConsole.prompt('Allow? > ');
  assert.equal(visible(t.take()), 'Allow? > ');
  t.terminalConsole.withdrawPrompt();
  assert.equal(t.take(), '\n', 'the line ends; nothing is erased');
  t.terminalConsole.withdrawPrompt();
  assert.equal(t.take(), '', 'a second withdraw writes nothing');
  t.terminalConsole.write(['Stopping…\n']);
  t.terminalConsole.write(['— canceled\n']);
  assert.equal(t.take(), 'Stopping…\n— canceled\n', 'no prompt erased or redrawn around the output');
  t.terminalConsole.prompt('› ');
  assert.equal(visible(t.take()), '› ');
});

test('Ctrl-D ends the input; a prompt asked for afterwards is ignored instead of throwing', async () => {
  const t = setup();
  t.terminalConsole.write(['a turn is running…']);
  await t.type('\x04');
  assert.deepEqual(t.events, ['end']);
  assert.equal(t.terminalConsole.ended, true);
  t.terminalConsole.prompt('› ');
  t.terminalConsole.write([' and ends.\n']);
  assert.equal(visible(t.shown()), 'a turn is running… and ends.\n');
});

test('a Ctrl-D the chat wants to outlast keeps the keyboard attached: Ctrl-C stays a key, typing stays hidden', async () => {
  let busy = true;
  const t = setup({ keepReading: () => busy });
  t.terminalConsole.write(['a turn is running…']);
  await t.type('\x04');
  assert.deepEqual(t.events, ['end']);
  assert.equal(t.terminalConsole.ended, false);
  await t.type('not echoed\x03');
  assert.deepEqual(t.events, ['end', 'interrupt']);
  assert.equal(visible(t.shown()), 'a turn is running…');
  busy = false;
  t.terminalConsole.close();
  assert.equal(t.terminalConsole.ended, true);
  assert.deepEqual(t.events, ['end', 'interrupt', 'end']);
});

test('Ctrl-C clears typed text at a prompt, and interrupts otherwise', async () => {
  const t = setup();
  await t.type('\x03');
  assert.deepEqual(t.events, ['interrupt']);
  t.terminalConsole.prompt('› ');
  await t.type('oops\x03');
  assert.deepEqual(t.events, ['interrupt']);
  await t.type('\r');
  assert.deepEqual(t.lines, ['']);
});

test('styles apply after control characters are neutralised, so text cannot smuggle its own sequences', () => {
  const t = setup({ color: true });
  t.terminalConsole.write([styled('bold', 'Bash'), ' ', 'rm -rf ~ \x1b[8mhidden\x1b[28m\n']);
  const shown = t.take();
  assert.equal(shown, '\x1b[1mBash\x1b[22m rm -rf ~ ␛[8mhidden␛[28m\n');
  const prompt = setup({ color: true });
  prompt.terminalConsole.prompt('Allow \x1b[2K? ');
  assert.equal(visible(prompt.take()), 'Allow ␛[2K? ');
});

test('without a terminal no prompt is drawn and lines arrive as read', async () => {
  const t = setup({ terminal: false });
  t.terminalConsole.prompt('› ');
  await t.type('one\ntwo\n');
  t.terminalConsole.write(['out\n']);
  assert.equal(t.shown(), 'out\n');
  assert.deepEqual(t.lines, ['one', 'two']);
});
