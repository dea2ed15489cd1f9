import { createContext, useContext } from 'react';
import type { ChangesStore } from '../data/changesStore.ts';

/**
 * What a session's turn cards and panels need to review and undo its changes. A context, not props: the
 * transcript's rows are memoized on their items, and a card must follow the changes as they reload.
 */
export interface Review {
  changes: ChangesStore;
  /** Why rewinds and reverts must wait (a turn runs, prompts are queued); null when they can run. */
  blockedReason: string | null;
  openRewind(turnId: string): void;
}

export const ReviewContext = createContext<Review | null>(null);

export function useReview(): Review {
  const review = useContext(ReviewContext);
  if (review === null) throw new Error('ReviewContext is missing');
  return review;
}
