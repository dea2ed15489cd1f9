import type { ResultSource, ToolResultBlock } from '@outrigger/host-api';

const rank: Readonly<Record<ResultSource, number>> = { synthesized: 0, hook: 1, canonical: 2 };

/**
 * Dedup layer 2, the host's rank rule: `canonical` beats `hook` whatever the arrival order, anything
 * real beats `synthesized`, and on equal rank the later result wins. A replay after a reload can carry
 * both a hook and a canonical result for one call; the view keeps exactly one.
 */
export function resultReplaces(current: ToolResultBlock | undefined, incoming: ToolResultBlock): boolean {
  if (current === undefined) return true;
  return rank[incoming.resultSource] >= rank[current.resultSource];
}
