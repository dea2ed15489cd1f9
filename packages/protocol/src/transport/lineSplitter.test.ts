import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineSplitter } from './lineSplitter.ts';

function collect(maxLineBytes?: number) {
  const seen: (string | { oversized: number })[] = [];
  const splitter = new LineSplitter({
    onLine: (line) => seen.push(line),
    onOversizedLine: (bytes) => seen.push({ oversized: bytes }),
    maxLineBytes,
  });
  return { seen, splitter };
}

describe('LineSplitter', () => {
  test('joins lines across chunk boundaries and splits several lines in one chunk', () => {
    const { seen, splitter } = collect();
    splitter.push('{"a"');
    splitter.push(':1}\n{"b":2}\n{');
    splitter.push('"c":3}\n');
    assert.deepEqual(seen, ['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test('strips CRLF and keeps blank lines for the receiver to skip', () => {
    const { seen, splitter } = collect();
    splitter.push('one\r\n\r\ntwo\r');
    splitter.push('\n');
    assert.deepEqual(seen, ['one', '', 'two']);
  });

  test('decodes a UTF-8 character split across chunks', () => {
    const { seen, splitter } = collect();
    const bytes = Buffer.from('{"t":"héllo ✓ 😀"}\n', 'utf8');
    for (let index = 0; index < bytes.length; index++) splitter.push(bytes.subarray(index, index + 1));
    assert.deepEqual(seen, ['{"t":"héllo ✓ 😀"}']);
  });

  test('a final line without a newline is emitted at end', () => {
    const { seen, splitter } = collect();
    splitter.push('first\nlast');
    assert.deepEqual(seen, ['first']);
    splitter.end();
    assert.deepEqual(seen, ['first', 'last']);
    splitter.end();
    assert.deepEqual(seen, ['first', 'last']);
  });

  test('an oversized line is discarded and reported, and the next line still arrives', () => {
    const { seen, splitter } = collect(8);
    splitter.push('12345');
    splitter.push('6789');
    splitter.push('0abc\nok\n');
    splitter.push('exactly8\n');
    assert.deepEqual(seen, [{ oversized: 13 }, 'ok', 'exactly8']);
  });

  test('an oversized line counts bytes, not characters, and may end the stream', () => {
    const { seen, splitter } = collect(4);
    splitter.push('ééé');
    splitter.end();
    assert.deepEqual(seen, [{ oversized: 6 }]);
  });

  test('does not buffer the discarded part of a huge line', () => {
    const { seen, splitter } = collect(1024);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let index = 0; index < 64; index++) splitter.push(chunk);
    splitter.push('\n{"after":true}\n');
    assert.deepEqual(seen, [{ oversized: 64 * 64 * 1024 }, '{"after":true}']);
  });
});
