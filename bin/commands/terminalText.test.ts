import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainText, sanitizeTerminalText, styled } from './terminalText.ts';

/** Any byte a terminal would act on instead of print (tab and newline aside). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

test('an erase-line / cursor-up sequence cannot hide a command: the sequence shows, nothing printable is lost', () => {
  const crafted = 'rm -rf ~/\x1b[2K\x1b[1A\recho harmless';
  const shown = sanitizeTerminalText(crafted);
  assert.doesNotMatch(shown, CONTROL);
  assert.equal(shown, 'rm -rf ~/␛[2K␛[1A␍echo harmless');
});

test('OSC, DCS, 8-bit CSI and C1 controls are neutralised; their text stays visible', () => {
  const osc = sanitizeTerminalText('\x1b]0;fake title\x07ls; \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\');
  assert.equal(osc, '␛]0;fake title␇ls; ␛]8;;http://evil␛\\link␛]8;;␛\\');
  const c1 = sanitizeTerminalText('a\x9b2Kb\x90dcs\x9cc\x85d');
  assert.equal(c1, 'a\ufffd2Kb\ufffddcs\ufffdc\ufffdd');
  for (const text of [osc, c1]) assert.doesNotMatch(text, CONTROL);
});

test('every C0 control but tab and newline, and DEL, shows as its control picture', () => {
  for (let code = 0; code < 0x20; code++) {
    const char = String.fromCharCode(code);
    const shown = sanitizeTerminalText(`x${char}y`);
    if (char === '\t' || char === '\n') assert.equal(shown, `x${char}y`);
    else assert.equal(shown, `x${String.fromCharCode(0x2400 + code)}y`, `code ${code}`);
  }
  assert.equal(sanitizeTerminalText('a\x7fb'), 'a␡b');
});

test('CRLF becomes a newline; bidi overrides that reorder a line are neutralised', () => {
  assert.equal(sanitizeTerminalText('one\r\ntwo\n'), 'one\ntwo\n');
  // "echo safe" shown, "rm" run: U+202E reverses what follows it on screen.
  assert.equal(sanitizeTerminalText('echo \u202emr\u202c'), 'echo \ufffdmr\ufffd');
  assert.equal(
    sanitizeTerminalText('plain text, ünïcödé, emoji 👍🏽 and a\ttab'),
    'plain text, ünïcödé, emoji 👍🏽 and a\ttab',
  );
});

test('plainText joins what segments show, without styles', () => {
  assert.equal(plainText(['a', styled('bold', 'b'), styled(['dim', 'red'], 'c')]), 'abc');
});
