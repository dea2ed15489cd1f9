import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MarkdownStream } from './markdownStream.ts';
import type { Segment } from './terminalText.ts';

/** Feeds the text in chunks of `size` characters, as deltas arrive, and collects the rendering. */
function render(markdown: string, size = 1): string {
  const stream = new MarkdownStream();
  const out: Segment[] = [];
  for (let at = 0; at < markdown.length; at += size) out.push(...stream.push(markdown.slice(at, at + size)));
  out.push(...stream.end());
  return plainStyled(out);
}

/** Adjacent segments with the same style merged, styles shown as <style>…</>. */
function plainStyled(segments: readonly Segment[]): string {
  let out = '';
  let open = '';
  for (const segment of segments) {
    const style = typeof segment === 'string' ? '' : [segment.style].flat().join('+');
    const text = typeof segment === 'string' ? segment : segment.text;
    if (style !== open) {
      if (open) out += '</>';
      if (style) out += `<${style}>`;
      open = style;
    }
    out += text;
  }
  return open ? `${out}</>` : out;
}

test('headings, emphasis and inline code lose their markers and gain styles, whatever the chunking', () => {
  const markdown = '# Title\n## A *streamed* answer\n\nRenders **bold**, *italics* and `inline code`: 2 * 3 = 6.\n';
  const expected =
    '<bold+underline>Title</>\n<bold>A </><bold+italic>streamed</><bold> answer</>\n\n' +
    'Renders <bold>bold</>, <italic>italics</> and <cyan>inline code</>: 2 * 3 = 6.\n';
  for (const size of [1, 2, 3, 7, 1000]) assert.equal(render(markdown, size), expected, `chunks of ${size}`);
});

test('lists get bullets, numbered items keep their numbers, quotes a bar', () => {
  const markdown = '- one\n* two\n  - nested **deep**\n1. first\n2) second\n> quoted\n';
  assert.equal(render(markdown, 3), '• one\n• two\n  • nested <bold>deep</>\n1. first\n2) second\n<dim>│ quoted</>\n');
});

test('fenced code is indented and coloured, its fences and markers left alone', () => {
  const markdown = 'Code:\n\n```ts\nconst a = b * c; // **not bold**\n```\nAfter.\n';
  assert.equal(render(markdown, 4), 'Code:\n\n  <cyan>const a = b * c; // **not bold**</>\nAfter.\n');
});

test('a table is laid out in aligned columns once complete, the header bold', () => {
  const markdown = '| layer | job |\n| --- | --- |\n| sidecar | wraps the **SDK** |\n| web | shows it |\nafter\n';
  assert.equal(
    render(markdown, 5),
    [
      '<bold>layer</>  <dim> │ </><bold>job</>',
      '<dim>────────┼──────────────</>',
      'sidecar<dim> │ </>wraps the <bold>SDK</>',
      'web    <dim> │ </>shows it',
      'after',
      '',
    ].join('\n'),
  );
});

test('a thematic break is a rule; escaped markers and snake_case stay as written', () => {
  assert.equal(
    render('---\n\\*literal\\* and snake_case_name\n'),
    '<dim>' + '─'.repeat(40) + '</>\n*literal* and snake_case_name\n',
  );
});

test('text streams as soon as it is unambiguous: a paragraph is passed on before its line ends', () => {
  const stream = new MarkdownStream();
  assert.equal(plainStyled(stream.push('#')), '', 'a lone # may become a heading');
  assert.equal(plainStyled(stream.push('1 is a hashtag, ')), '#1 is a hashtag, ');
  assert.equal(plainStyled(stream.push('and **bo')), 'and <bold>bo</>');
  assert.equal(plainStyled(stream.push('ld** *')), '<bold>ld</> ', 'a trailing * waits for the next character');
  assert.equal(plainStyled(stream.push('x*')), '<italic>x</>', 'the closing * is held, then ends the italics');
  assert.equal(plainStyled(stream.end()), '\n');
});

test('unterminated markdown at the end is flushed as it is', () => {
  assert.equal(render('```\nstill code'), '  <cyan>still code</>\n');
  assert.equal(render('| a |'), 'a\n');
  assert.equal(render('#'), '#\n');
});
