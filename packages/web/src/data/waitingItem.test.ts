import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interaction, row, T0 } from './testing/fixtures.ts';
import type { TimelineItem, ToolNode } from './timeline.ts';
import { firstWaitingIndex } from './waitingItem.ts';

const node = (id: string, children: ToolNode[] = [], pending = false): ToolNode => ({
  row: row({ id }),
  children,
  interactions: [
    interaction({ requestId: `${id}-done`, status: 'answered' }),
    ...(pending ? [interaction({ requestId: `${id}-asks`, createdAt: T0 })] : []),
  ],
});

test('the first waiting card is found on its own, on a tool call, or on a subagent’s call', () => {
  const text: TimelineItem = { kind: 'text', key: 'r0', row: row({ id: 'r0' }) };
  const resolvedTool: TimelineItem = { kind: 'tool', key: 'a', node: node('a') };
  assert.equal(firstWaitingIndex([text, resolvedTool]), -1, 'a resolved prompt does not wait');
  const nested: TimelineItem = { kind: 'tool', key: 'b', node: node('b', [node('c', [], true)]) };
  assert.equal(firstWaitingIndex([text, resolvedTool, nested]), 2);
  const own: TimelineItem = { kind: 'prompt', key: 'p', interaction: interaction({ requestId: 'p' }) };
  assert.equal(firstWaitingIndex([text, own, nested]), 1);
});
