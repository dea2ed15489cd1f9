import type { SessionUsage } from '@outrigger/host-api';

export type ContextWindow = NonNullable<SessionUsage['contextWindow']>;

/**
 * What the context meter shows: the newest measurement, and until one arrives the last one there was. A turn
 * that starts (or a snapshot without a window size) must not blank the meter to "—": how full the context
 * was stays true until Claude Code says otherwise. A measurement without its window size takes the last size.
 */
export function nextContextReading(
  previous: ContextWindow | null,
  current: ContextWindow | null,
): ContextWindow | null {
  if (current === null) return previous;
  if (current.totalTokens === undefined && previous?.totalTokens !== undefined) {
    return { ...current, totalTokens: previous.totalTokens };
  }
  return current;
}
