import type { SessionSnapshot } from '@outrigger/host-api';
import type { SessionViewState } from '../sessionState.ts';
import { detail, snapshot } from './fixtures.ts';

/** What a host's snapshot at this view's `lastSeq` says: its rows, turns, prompts, queue and tasks. */
export function snapshotOf(state: SessionViewState): SessionSnapshot {
  const open = Object.values(state.turns).find((t) => t.status === 'running') ?? null;
  return snapshot({
    session: state.session ?? detail(),
    lastSeq: state.lastSeq,
    openTurn: open,
    pendingInteractions: Object.values(state.interactions).filter((i) => i.status === 'pending'),
    queuedPrompts: [...state.queuedPrompts],
    backgroundTasks: [...state.backgroundTasks],
    tasks: [...state.tasks],
    messages: {
      messages: state.order.map((id) => state.rows[id]!),
      turns: Object.values(state.turns).filter((t) => t.id !== open?.id),
      hasMore: false,
    },
  });
}
