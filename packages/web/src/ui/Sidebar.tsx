import type { SessionSearchHit, SessionSummary } from '@outrigger/host-api';
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { displayStatus } from '../data/displayStatus.ts';
import { baseName, messageOf } from '../data/format.ts';
import { inboxItems, sortedSessions } from '../data/hostState.ts';
import { listedSessions, type SessionFilter, sessionFilterLabels, sessionFilters } from '../data/sessionFilter.ts';
import type { ConnectionState } from '../data/streamConnection.ts';
import { useServices } from './appContext.ts';
import { useNow, useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { NewSessionDialog } from './NewSessionDialog.tsx';
import { historyHref, navigate, type Route, sessionHref } from './route.ts';
import { CloseSessionDialog, DeleteSessionDialog } from './SessionDialogs.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import type { ThemeChoice } from './theme.ts';
import { useSessionList } from './useSessionList.ts';

/** A dialog the sidebar holds above its list, so it outlives the row that opened it (a deleted session's). */
type SessionDialog = { kind: 'close' | 'delete'; session: SessionSummary };

export function Sidebar({
  route,
  open,
  theme,
  onTheme,
  onCloseDrawer,
}: {
  route: Route;
  open: boolean;
  theme: ThemeChoice;
  onTheme: () => void;
  /** Closes the phone drawer (a dialog opened from it shows on its own). */
  onCloseDrawer: () => void;
}) {
  const { host } = useServices();
  const screen = useValue(host.screen);
  const [query, setQuery] = useState('');
  const [filter, setFilter] = useState<SessionFilter>('all');
  const [showArchived, setShowArchived] = useState(false);
  const source = useSessionList(query, showArchived);
  const known = showArchived ? (source.archived ?? []) : sortedSessions(screen.view);
  const listed = listedSessions(known, filter, query.trim() === '' ? null : source.hits);
  const pending = inboxItems(screen.view).length;
  const [creating, setCreating] = useState(false);
  const [dialog, setDialog] = useState<SessionDialog | null>(null);
  const anyRunning = listed.some(({ session }) => session.status === 'running');
  const now = useNow(anyRunning);
  const current = route.page === 'session' ? route.sessionId : null;
  const filtered = query.trim() !== '' || filter !== 'all';

  return (
    <nav className="sidebar" data-open={open} aria-label="Sessions">
      <div className="sidebar-head">
        <span className="brand">Outrigger</span>
        {screen.info?.modelBackend === 'demo' && (
          <span className="demo-badge" title={screen.info.modelBackendReason}>
            Demo model
          </span>
        )}
        <button
          type="button"
          className="icon-btn"
          onClick={onTheme}
          aria-label={`Theme: ${theme}. Switch theme`}
          title={`Theme: ${theme}`}
        >
          <Icon name={theme === 'dark' ? 'moon' : theme === 'light' ? 'sun' : 'monitor'} />
        </button>
      </div>
      <div className="sidebar-actions">
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => {
            onCloseDrawer();
            setCreating(true);
          }}
        >
          <Icon name="plus" /> New session
        </button>
        <a
          className={`inbox-link${pending > 0 ? ' has-items' : ''}`}
          href="#/inbox"
          aria-current={route.page === 'inbox' ? 'page' : undefined}
        >
          <Icon name="inbox" /> Needs you
          {pending > 0 && (
            <span className="count" role="status" aria-label={`${pending} waiting`}>
              {pending}
            </span>
          )}
        </a>
        <a
          className="inbox-link"
          href={historyHref}
          aria-current={route.page === 'history' || route.page === 'historySession' ? 'page' : undefined}
        >
          <Icon name="history" /> Claude Code history
        </a>
      </div>
      <search className="session-finder">
        <input
          className="input"
          type="search"
          value={query}
          placeholder={showArchived ? 'Search archived sessions' : 'Search titles and prompts'}
          aria-label={showArchived ? 'Search archived sessions' : 'Search sessions'}
          aria-describedby="session-list-count"
          onChange={(event) => setQuery(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setQuery('');
          }}
        />
        <fieldset className="filter-chips">
          <legend className="sr-only">Show</legend>
          {sessionFilters.map((value) => (
            <button
              key={value}
              type="button"
              className="filter-chip"
              aria-pressed={filter === value}
              onClick={() => setFilter(value)}
            >
              {sessionFilterLabels[value]}
            </button>
          ))}
          <button
            type="button"
            className="filter-chip filter-archive"
            aria-pressed={showArchived}
            onClick={() => setShowArchived((shown) => !shown)}
          >
            <Icon name="archive" /> Archived
          </button>
        </fieldset>
      </search>
      <div className="session-list-label" id="session-list-label">
        {showArchived ? 'Archived sessions' : 'Sessions'}
        <span className="sr-only" id="session-list-count" role="status">
          {source.searching ? 'Searching…' : filtered ? `${listed.length} shown` : ''}
        </span>
      </div>
      <ul className="session-list" aria-labelledby="session-list-label">
        {listed.map(({ session, match }) => (
          <SessionItem
            key={session.id}
            session={session}
            match={match}
            current={session.id === current}
            now={now}
            connection={screen.connection}
            onDialog={(kind) => setDialog({ kind, session })}
            onArchived={source.refresh}
          />
        ))}
        {source.error !== null && <li className="composer-error small session-list-empty">{source.error}</li>}
        {listed.length === 0 && (screen.view.loaded || showArchived) && !source.searching && (
          <li className="muted small session-list-empty">
            {filtered
              ? 'No session matches.'
              : showArchived
                ? source.archived === null
                  ? 'Loading…'
                  : 'No archived sessions.'
                : 'No sessions yet.'}
          </li>
        )}
      </ul>
      <div className="sidebar-foot">
        {screen.connection === 'live' ? (
          <span>Connected{screen.info === null ? '' : ` · v${screen.info.version}`}</span>
        ) : screen.connection === 'connecting' ? (
          <span>Connecting…</span>
        ) : (
          <StatusBadge status="disconnected" title={screen.loadError ?? 'The live connection to the host is down'} />
        )}
      </div>
      {/* In the body, not the drawer: at phone width the closed drawer is not displayed, nor would they be. */}
      {creating && createPortal(<NewSessionDialog onClose={() => setCreating(false)} />, document.body)}
      {dialog?.kind === 'close' &&
        createPortal(<CloseSessionDialog session={dialog.session} onClose={() => setDialog(null)} />, document.body)}
      {dialog?.kind === 'delete' &&
        createPortal(
          <DeleteSessionDialog
            session={dialog.session}
            onClose={() => setDialog(null)}
            onDeleted={() => {
              source.refresh();
              if (current === dialog.session.id) navigate('#/');
            }}
          />,
          document.body,
        )}
    </nav>
  );
}

function SessionItem({
  session,
  match,
  current,
  now,
  connection,
  onDialog,
  onArchived,
}: {
  session: SessionSummary;
  /** The prompt a search matched in, shown under the title. */
  match: SessionSearchHit['match'] | null;
  current: boolean;
  now: number;
  connection: ConnectionState;
  onDialog: (kind: 'close' | 'delete') => void;
  /** Archived or restored: the Archived view asks the host again. */
  onArchived: () => void;
}) {
  const { host } = useServices();
  const [menu, setMenu] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const status = displayStatus(session, connection);
  const menuRef = useRef<HTMLDivElement>(null);
  const archived = session.archivedAt !== null;

  useEffect(() => {
    if (!menu) return;
    const onDown = (event: MouseEvent) => {
      if (!menuRef.current?.parentElement?.contains(event.target as Node)) setMenu(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [menu]);

  const reason = session.lastError?.message;
  const act = (work: () => void) => () => {
    setMenu(false);
    setError(null);
    work();
  };
  return (
    <li
      className={`session-item${session.closed ? ' closed' : ''}`}
      data-current={current}
      data-status={session.status}
    >
      {renaming ? (
        <form
          className="session-link"
          onSubmit={(event) => {
            event.preventDefault();
            const title = String(new FormData(event.currentTarget).get('title') ?? '').trim();
            if (title === '' || title === session.title) return setRenaming(false);
            host.rename(session.id, title).then(
              () => setRenaming(false),
              (e: unknown) => setError(messageOf(e)),
            );
          }}
        >
          <input
            className="input"
            name="title"
            defaultValue={session.title}
            aria-label="Session name"
            // biome-ignore lint/a11y/noAutofocus: the person just asked to rename this session
            autoFocus
            onKeyDown={(event) => {
              if (event.key === 'Escape') setRenaming(false);
            }}
            onBlur={(event) => event.currentTarget.form?.requestSubmit()}
          />
        </form>
      ) : (
        <a className="session-link" href={sessionHref(session.id)} aria-current={current ? 'page' : undefined}>
          <span className="session-title">
            <span className="name">{session.title}</span>
            {session.forkedFrom !== null && <Icon name="fork" />}
          </span>
          <span className="session-sub">
            <StatusBadge
              status={status}
              title={status === 'failed' ? reason : undefined}
              runningSinceMs={session.runningTurnStartedAt}
              now={now}
            />
            <span title={session.cwd}>· {baseName(session.cwd)}</span>
          </span>
          {match !== null && <span className="session-match">“{match.text}”</span>}
        </a>
      )}
      {error !== null && (
        <span className="composer-error session-error" role="alert">
          {error}
        </span>
      )}
      <div ref={menuRef}>
        <button
          type="button"
          className="icon-btn session-menu"
          aria-label={`Actions for ${session.title}`}
          aria-haspopup="menu"
          aria-expanded={menu}
          onClick={() => setMenu((open) => !open)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setMenu(false);
          }}
        >
          <Icon name="more" />
        </button>
      </div>
      {menu && (
        <div className="menu" role="menu" aria-label={`Actions for ${session.title}`}>
          <button type="button" role="menuitem" onClick={act(() => setRenaming(true))}>
            Rename
          </button>
          {!session.closed && !archived && (
            <button type="button" role="menuitem" onClick={act(() => onDialog('close'))}>
              Close session…
            </button>
          )}
          <button
            type="button"
            role="menuitem"
            onClick={act(() =>
              host.archive(session.id, !archived).then(onArchived, (e: unknown) => setError(messageOf(e))),
            )}
          >
            {archived ? 'Restore' : 'Archive'}
          </button>
          <button type="button" role="menuitem" className="danger" onClick={act(() => onDialog('delete'))}>
            Delete…
          </button>
        </div>
      )}
    </li>
  );
}
