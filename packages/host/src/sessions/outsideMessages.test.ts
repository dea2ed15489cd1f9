import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TranscriptMessage } from './claudeTranscripts.ts';
import { endsExchange, outsideMessages, renderOutsideChanges } from './outsideMessages.ts';
import { answer, prompt, toolCall, toolResult } from './testing/transcriptMessages.ts';

const uuids = (messages: readonly TranscriptMessage[] | undefined) => messages?.map((message) => message.uuid);

test('after the mark, only exchanges whose prompt is no Outrigger turn are outside', () => {
  const conversation = [
    prompt('p1', 'ours'),
    answer('a1', 'our answer'),
    prompt('p2', 'from the terminal'),
    toolCall('a2', 'Bash'),
    toolResult('r2'),
    answer('a3', 'terminal answer'),
    prompt('p3', 'ours again (a failed turn)'),
    prompt('p4', 'terminal again'),
  ];
  assert.deepEqual(uuids(outsideMessages(conversation, 'a1', new Set(['p1', 'p3']))), ['p2', 'a2', 'a3', 'p4']);
  assert.deepEqual(uuids(outsideMessages(conversation, 'a3', new Set(['p1', 'p3']))), ['p4']);
  assert.deepEqual(uuids(outsideMessages(conversation, 'p4', new Set(['p1', 'p3']))), []);
  assert.equal(outsideMessages(conversation, 'gone', new Set()), undefined, 'a mark that is not there places nothing');
});

test('what follows the mark belongs to the mark’s exchange: Outrigger’s own, or an outside one answered later', () => {
  const conversation = [
    prompt('p1', 'ours'),
    answer('a1', 'our answer'),
    prompt('i1', '[Request interrupted by user]'),
    prompt('n1', '<task-notification><task-id>x</task-id></task-notification>'),
  ];
  assert.deepEqual(uuids(outsideMessages(conversation, 'a1', new Set(['p1']))), [], 'bookkeeping is no prompt');
  const answeredLater = [prompt('p1', 'ours'), answer('a1', 'ok'), prompt('p2', 'terminal'), answer('a2', 'late')];
  assert.deepEqual(
    uuids(outsideMessages(answeredLater, 'p2', new Set(['p1']))),
    ['a2'],
    'a notice showed the prompt; its answer came after it',
  );
  const continued = [prompt('h1', 'history'), answer('h2', 'history answer'), answer('h3', 'written since')];
  assert.deepEqual(uuids(outsideMessages(continued, 'h2', new Set())), ['h3'], 'the mark of a continued session');
});

test('the notice shows prompts and answers, each cut, and the newest when there are many', () => {
  const text = renderOutsideChanges([prompt('p', 'what now?'), toolCall('t', 'Bash'), answer('a', 'x'.repeat(5_000))]);
  assert.match(text, /3 new messages/);
  assert.match(text, /› what now\?/);
  assert.match(text, /\(used Bash\)/);
  assert.match(text, /x{1200}…$/);
  assert.ok(text.length < 2_000);
  const many = Array.from({ length: 60 }, (_, index) => prompt(`p${index}`, `prompt ${index}`));
  const rendered = renderOutsideChanges(many);
  assert.match(rendered, /… 36 earlier messages not shown/);
  assert.match(rendered, /› prompt 59$/);
  assert.doesNotMatch(rendered, /› prompt 35\n/);
});

test('an exchange ends with an answer that calls no tool, or an interruption; a prompt or a tool step has not', () => {
  assert.equal(endsExchange([prompt('p1', 'go')]), false);
  assert.equal(endsExchange([prompt('p1', 'go'), toolCall('c1', 'Bash')]), false);
  assert.equal(endsExchange([prompt('p1', 'go'), toolCall('c1', 'Bash'), toolResult('r1')]), false);
  assert.equal(endsExchange([prompt('p1', 'go'), answer('a1', 'done')]), true);
  assert.equal(endsExchange([prompt('p1', 'go'), prompt('i1', '[Request interrupted by user]')]), true);
  assert.equal(endsExchange([]), true);
});

test('a prompt with blank lines stays one message of the notice, which separates messages by blank lines', () => {
  const text = renderOutsideChanges([prompt('p', 'first part\n\nsecond part'), answer('a', 'done')]);
  const paragraphs = text.split('\n\n');
  assert.deepEqual(paragraphs.slice(1), ['› first part\nsecond part', 'done']);
});
