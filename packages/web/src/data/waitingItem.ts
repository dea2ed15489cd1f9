import type { TimelineItem, ToolNode } from './timeline.ts';

function nodeWaits(node: ToolNode): boolean {
  return node.interactions.some((interaction) => interaction.status === 'pending') || node.children.some(nodeWaits);
}

/**
 * The transcript item holding the first card that waits for the person (an approval, a question, a plan),
 * on its own or on the tool call that raised it, a subagent's included; -1 when nothing waits.
 */
export function firstWaitingIndex(items: readonly TimelineItem[]): number {
  return items.findIndex(
    (item) =>
      (item.kind === 'prompt' && item.interaction.status === 'pending') ||
      (item.kind === 'tool' && nodeWaits(item.node)),
  );
}
