import type { SessionSearchHit, SessionSummary } from '@outrigger/host-api';

/** The sidebar's filter chips: every session, those that wait for the person, those that work. */
export const sessionFilters = ['all', 'needs_you', 'running'] as const;
export type SessionFilter = (typeof sessionFilters)[number];

export const sessionFilterLabels: Readonly<Record<SessionFilter, string>> = {
  all: 'All',
  needs_you: 'Needs you',
  running: 'Running',
};

/** Whether a session shows under a filter: `needs_you` is a pending question or approval, `running` a live turn. */
export function matchesFilter(session: SessionSummary, filter: SessionFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'needs_you':
      return session.status === 'needs_input' || session.needsInputCount > 0;
    case 'running':
      return session.status === 'running';
  }
}

/**
 * The sessions the sidebar lists. Without a query: the known sessions under the filter. With one: the host's
 * search hits (titles and prompts), each replaced by the live summary this tab holds (the hit may be older),
 * under the filter; a session the host found that this tab no longer has (deleted meanwhile) is left out
 * unless the search was over archived sessions, which this tab does not hold.
 */
export function listedSessions(
  known: readonly SessionSummary[],
  filter: SessionFilter,
  hits: readonly SessionSearchHit[] | null,
): { session: SessionSummary; match: SessionSearchHit['match'] | null }[] {
  if (hits === null) {
    return known.filter((session) => matchesFilter(session, filter)).map((session) => ({ session, match: null }));
  }
  const byId = new Map(known.map((session) => [session.id, session]));
  return hits.flatMap((hit) => {
    const session = byId.get(hit.session.id) ?? (hit.session.archivedAt !== null ? hit.session : undefined);
    if (session === undefined || !matchesFilter(session, filter)) return [];
    return [{ session, match: hit.match.field === 'prompt' ? hit.match : null }];
  });
}
