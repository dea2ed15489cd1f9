import type { HostEvent, Interaction, SessionSummary } from '@outrigger/host-api';

/** The sidebar and the needs-you inbox: every session's summary and every pending interaction. */
export interface HostViewState {
  sessions: Readonly<Record<string, SessionSummary>>;
  /** Pending interactions across sessions, by `requestId`. */
  inbox: Readonly<Record<string, Interaction>>;
  /** The host stream's watermark. */
  lastSeq: number;
  /** False until the first lists arrived. */
  loaded: boolean;
}

export const emptyHostState: HostViewState = { sessions: {}, inbox: {}, lastSeq: 0, loaded: false };

export type HostAction =
  | { type: 'lists'; sessions: readonly SessionSummary[]; interactions: readonly Interaction[]; lastSeq: number }
  | { type: 'event'; event: HostEvent }
  | { type: 'sessionSaved'; session: SessionSummary }
  /** This tab deleted it (the stream's `session_deleted` says so again, to every tab). */
  | { type: 'sessionDeleted'; sessionId: string }
  | { type: 'interactionClosed'; requestId: string };

/**
 * The pure fold of the host stream. A `session` event carries the whole summary (upsert); an
 * interaction leaves the inbox when it is resolved anywhere, in this tab or another.
 */
export function hostReducer(state: HostViewState, action: HostAction): HostViewState {
  switch (action.type) {
    case 'lists': {
      const sessions: Record<string, SessionSummary> = {};
      for (const session of action.sessions) sessions[session.id] = session;
      const inbox: Record<string, Interaction> = {};
      for (const interaction of action.interactions)
        if (interaction.status === 'pending') inbox[interaction.requestId] = interaction;
      return { sessions, inbox, lastSeq: action.lastSeq, loaded: true };
    }
    case 'event': {
      if (action.event.data.seq <= state.lastSeq) return state;
      return { ...applyEvent(state, action.event), lastSeq: action.event.data.seq };
    }
    case 'sessionSaved':
      return { ...state, sessions: { ...state.sessions, [action.session.id]: action.session } };
    case 'sessionDeleted':
      return withoutSession(state, action.sessionId);
    case 'interactionClosed':
      return withoutInteraction(state, action.requestId);
  }
}

function applyEvent(state: HostViewState, event: HostEvent): HostViewState {
  switch (event.type) {
    case 'session':
      return { ...state, sessions: { ...state.sessions, [event.data.session.id]: event.data.session } };
    case 'permission_request':
      if (event.data.interaction.status !== 'pending') return state;
      return { ...state, inbox: { ...state.inbox, [event.data.interaction.requestId]: event.data.interaction } };
    case 'permission_resolved':
      return withoutInteraction(state, event.data.requestId);
    case 'session_deleted':
      return withoutSession(state, event.data.session_id);
  }
}

/** A deleted session leaves the list, and its pending interactions the inbox. */
function withoutSession(state: HostViewState, sessionId: string): HostViewState {
  const inbox = Object.fromEntries(
    Object.entries(state.inbox).filter(([, interaction]) => interaction.session_id !== sessionId),
  );
  if (state.sessions[sessionId] === undefined && Object.keys(inbox).length === Object.keys(state.inbox).length)
    return state;
  const sessions = { ...state.sessions };
  delete sessions[sessionId];
  return { ...state, sessions, inbox };
}

function withoutInteraction(state: HostViewState, requestId: string): HostViewState {
  if (state.inbox[requestId] === undefined) return state;
  const inbox = { ...state.inbox };
  delete inbox[requestId];
  return { ...state, inbox };
}

/** Open sessions first, newest first; positions do not jump while sessions work. Archived ones are left out. */
export function sortedSessions(state: HostViewState): SessionSummary[] {
  return Object.values(state.sessions)
    .filter((session) => session.archivedAt === null || session.archivedAt === undefined)
    .sort((a, b) => Number(a.closed) - Number(b.closed) || b.createdAt - a.createdAt || a.id.localeCompare(b.id));
}

/** The inbox, oldest request first (it has waited longest). */
export function inboxItems(state: HostViewState): Interaction[] {
  return Object.values(state.inbox).sort((a, b) => a.createdAt - b.createdAt);
}

/** How many sessions wait for the person: the number in the tab title. */
export function sessionsNeedingYou(state: HostViewState): number {
  const sessions = new Set(Object.values(state.inbox).map((interaction) => interaction.session_id));
  for (const session of Object.values(state.sessions)) if (session.status === 'needs_input') sessions.add(session.id);
  return sessions.size;
}
