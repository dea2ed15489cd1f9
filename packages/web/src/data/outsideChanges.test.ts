import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outsideChangesOf } from './outsideChanges.ts';

test('the notice reads back as its sentence and its messages, prompts and answers apart', () => {
  const text = [
    'The conversation went on outside Outrigger (in a terminal, or another program): 2 new messages. The next turn continues from them.',
    '› add a test',
    'Added **one** test.\n(used Edit)',
    'It passes.',
  ].join('\n\n');
  assert.deepEqual(outsideChangesOf(text), {
    lead: 'The conversation went on outside Outrigger (in a terminal, or another program): 2 new messages. The next turn continues from them.',
    omitted: null,
    messages: [
      { role: 'user', text: 'add a test' },
      { role: 'assistant', text: 'Added **one** test.\n(used Edit)\n\nIt passes.' },
    ],
  });
});

test('what was left out is said apart; a notice with no messages is its sentence alone', () => {
  const parsed = outsideChangesOf('Lead.\n\n… 3 earlier messages not shown\n\n› again');
  assert.equal(parsed.omitted, '3 earlier messages not shown');
  assert.deepEqual(parsed.messages, [{ role: 'user', text: 'again' }]);
  assert.deepEqual(outsideChangesOf('Only this.'), { lead: 'Only this.', omitted: null, messages: [] });
});
