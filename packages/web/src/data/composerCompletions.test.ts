import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CompletionSource, rankCommands } from './composerCompletions.ts';

const commands = [
  {
    name: 'compact',
    description: 'Free up context by summarizing the conversation so far',
    input: { hint: '<instructions>' },
  },
  { name: 'deploy', description: 'Deploy the app (project)', input: { hint: '[environment]' } },
  { name: 'context', description: 'Show current context usage' },
  { name: 'mcp:github:pr', description: 'Open a pull request' },
];

test('commands rank by name start, then name, then description; hints show in the label', () => {
  const ranked = rankCommands(commands, 'co');
  assert.deepEqual(
    ranked.items.map((item) => item.value),
    ['compact', 'context'],
  );
  assert.equal(ranked.items[0]?.label, '/compact <instructions>');
  assert.deepEqual(
    rankCommands(commands, 'pull').items.map((item) => item.value),
    ['mcp:github:pr'],
  );
  assert.deepEqual(
    rankCommands(commands, 'con').items.map((item) => item.value),
    ['context', 'compact'],
    'a description that holds the query ranks after a name that starts with it',
  );
  assert.equal(rankCommands(commands, '').items.length, 4);
  assert.equal(rankCommands(commands, 'zzz').items.length, 0);
});

test('the source asks the host once for a session’s commands within a while, and for files per query', async () => {
  const calls: string[] = [];
  let now = 0;
  const client = {
    call: async (name: string, input: { query?: { prefix?: string } }) => {
      calls.push(`${name}:${input.query?.prefix ?? ''}`);
      if (name === 'listCommands') return { commands };
      return {
        entries: [
          { path: 'src/', kind: 'directory' },
          { path: 'src/a.ts', kind: 'file' },
        ],
        truncated: true,
        source: 'git',
      };
    },
  } as never;
  const source = new CompletionSource(client, () => now);
  await source.complete('s1', { kind: 'command', query: '', start: 0, end: 1 });
  await source.complete('s1', { kind: 'command', query: 'de', start: 0, end: 3 });
  now = 20_000;
  await source.complete('s1', { kind: 'command', query: 'de', start: 0, end: 3 });
  const files = await source.complete('s1', { kind: 'file', query: 'src', start: 0, end: 4 });
  assert.deepEqual(calls, ['listCommands:', 'listCommands:', 'completeFiles:src']);
  assert.deepEqual(
    files.items.map((item) => [item.value, item.kind]),
    [
      ['src/', 'directory'],
      ['src/a.ts', 'file'],
    ],
  );
  assert.equal(files.truncated, true);
});
