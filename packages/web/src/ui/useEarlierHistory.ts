import type { ContinuedFrom } from '@outrigger/host-api';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { EarlierHistory } from '../data/earlierHistory.ts';
import { HistoryTranscriptStore } from '../data/historyTranscriptStore.ts';
import { useServices } from './appContext.ts';
import { useValue } from './hooks.ts';

/** The store of a session that continues nothing: never started, so it never calls a host. */
const none = new HistoryTranscriptStore(null as never, 'none');

/**
 * A continued session's Claude Code history (`continuedFrom`): folded until the person opens it, then read from
 * the transcript's rows before the session's first turn, page by page as the conversation pages.
 */
export function useEarlierHistory(continuedFrom: ContinuedFrom | null): {
  earlier: EarlierHistory | null;
  toggle(): void;
  hasOlder: boolean;
  loadingOlder: boolean;
  loadOlder(): Promise<void>;
} {
  const { client } = useServices();
  const [open, setOpen] = useState(false);
  // Read when first opened, and kept when folded again: showing it once more asks the host nothing.
  const [read, setRead] = useState(false);
  const id = continuedFrom?.claudeSessionId;
  const rows = continuedFrom?.rows;
  const store = useMemo(
    () => (id === undefined ? none : new HistoryTranscriptStore(client, id, { before: rows })),
    [client, id, rows],
  );
  const opened = open && store !== none;
  useEffect(() => {
    if (!read || store === none) return;
    void store.start();
    return () => store.stop();
  }, [store, read]);
  const screen = useValue(store.screen);
  const earlier = useMemo<EarlierHistory | null>(
    () => (continuedFrom === null ? null : { continuedFrom, open, view: screen.loaded ? screen.view : null }),
    [continuedFrom, open, screen.loaded, screen.view],
  );
  // Stable: it is one of the transcript's actions, and a new one would render every memoized row again.
  const toggle = useCallback(() => {
    setOpen((value) => !value);
    setRead(true);
  }, []);
  return {
    earlier,
    toggle,
    hasOlder: opened && screen.view.hasOlder,
    loadingOlder: screen.loadingOlder,
    loadOlder: () => store.loadOlder(),
  };
}
