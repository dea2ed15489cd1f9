import type { SessionSearchHit, SessionSummary } from '@outrigger/host-api';
import { useEffect, useState } from 'react';
import { messageOf } from '../data/format.ts';
import { useServices } from './appContext.ts';

/** How long typing pauses before the host is asked (one search per pause, not per key). */
const SEARCH_DEBOUNCE_MS = 150;

export interface SessionListSource {
  /** The host's search hits for the query; null without a query (or until the first answer). */
  hits: SessionSearchHit[] | null;
  /** The archived sessions, while the Archived view is open (this tab's list holds only the others). */
  archived: SessionSummary[] | null;
  searching: boolean;
  error: string | null;
  /** Ask again (after a restore or a delete changed the archived list). */
  refresh: () => void;
}

/**
 * What the sidebar lists beyond the live session list: search hits over titles and prompts (the host's
 * search route, debounced, the previous request aborted), and the archived sessions for the Archived view.
 */
export function useSessionList(query: string, showArchived: boolean): SessionListSource {
  const { host } = useServices();
  const [hits, setHits] = useState<SessionSearchHit[] | null>(null);
  const [archived, setArchived] = useState<SessionSummary[] | null>(null);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const text = query.trim();

  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` asks again (refresh)
  useEffect(() => {
    if (text === '') {
      setHits(null);
      setSearching(false);
      return;
    }
    const controller = new AbortController();
    setSearching(true);
    const timer = setTimeout(() => {
      host.searchSessions(text, showArchived, controller.signal).then(
        (found) => {
          setHits(found.results);
          setError(null);
          setSearching(false);
        },
        (e: unknown) => {
          if (controller.signal.aborted) return;
          setError(messageOf(e));
          setSearching(false);
        },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [host, text, showArchived, round]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` asks again (refresh)
  useEffect(() => {
    if (!showArchived) {
      setArchived(null);
      return;
    }
    const controller = new AbortController();
    host.archivedSessions(controller.signal).then(
      (sessions) => {
        setArchived(sessions);
        setError(null);
      },
      (e: unknown) => {
        if (!controller.signal.aborted) setError(messageOf(e));
      },
    );
    return () => controller.abort();
  }, [host, showArchived, round]);

  return { hits, archived, searching, error, refresh: () => setRound((n) => n + 1) };
}
