import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SlashCommandCatalog } from './slashCommands.ts';

test('hidden commands are dropped and MCP prompts are renamed', () => {
  const catalog = new SlashCommandCatalog();
  const commands = catalog.fromChanged([
    { name: 'compact', description: 'Compact the conversation', argumentHint: '<instructions>' },
    { name: 'clear', description: 'Clear', argumentHint: '' },
    { name: 'todos', description: 'Todos', argumentHint: '' },
    { name: 'github:review (MCP)', description: 'Review a PR', argumentHint: '' },
  ]);
  assert.deepEqual(commands, [
    { name: 'compact', description: 'Compact the conversation', input: { hint: '<instructions>' } },
    { name: 'mcp:github:review', description: 'Review a PR' },
  ]);
});

test('init names reuse known descriptions, and an unchanged list is not republished', () => {
  const catalog = new SlashCommandCatalog();
  catalog.fromChanged([{ name: 'review', description: 'Review code', argumentHint: '' }]);
  assert.deepEqual(catalog.fromInit(['review', 'login', 'init']), [
    { name: 'review', description: 'Review code' },
    { name: 'init', description: '' },
  ]);
  assert.equal(catalog.fromInit(['review', 'init']), undefined);
  catalog.reset();
  assert.equal(catalog.fromInit(['review', 'init'])?.length, 2);
});

test('a non-list is ignored', () => {
  assert.equal(new SlashCommandCatalog().fromInit(undefined), undefined);
});
