import type { SessionSummary } from '@outrigger/host-api';
import { useEffect, useRef, useState } from 'react';
import { displayStatus } from '../data/displayStatus.ts';
import { baseName, messageOf } from '../data/format.ts';
import { inboxItems, sortedSessions } from '../data/hostState.ts';
import type { ConnectionState } from '../data/streamConnection.ts';
import { useServices } from './appContext.ts';
import { useNow, useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { NewSessionDialog } from './NewSessionDialog.tsx';
import { type Route, sessionHref } from './route.ts';
import { StatusBadge } from './StatusBadge.tsx';
import type { ThemeChoice } from './theme.ts';

export function Sidebar({
  route,
  open,
  theme,
  onTheme,
}: {
  route: Route;
  open: boolean;
  theme: ThemeChoice;
  onTheme: () => void;
}) {
  const { host } = useServices();
  const screen = useValue(host.screen);
  const sessions = sortedSessions(screen.view);
  const pending = inboxItems(screen.view).length;
  const [creating, setCreating] = useState(false);
  const anyRunning = sessions.some((s) => s.status === 'running');
  const now = useNow(anyRunning);
  const current = route.page === 'session' ? route.sessionId : null;

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
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
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
      </div>
      <div className="session-list-label" id="session-list-label">
        Sessions
      </div>
      <ul className="session-list" aria-labelledby="session-list-label">
        {sessions.map((session) => (
          <SessionItem
            key={session.id}
            session={session}
            current={session.id === current}
            now={now}
            connection={screen.connection}
          />
        ))}
        {screen.view.loaded && sessions.length === 0 && (
          <li className="muted small session-list-empty">No sessions yet.</li>
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
      {creating && <NewSessionDialog onClose={() => setCreating(false)} />}
    </nav>
  );
}

function SessionItem({
  session,
  current,
  now,
  connection,
}: {
  session: SessionSummary;
  current: boolean;
  now: number;
  connection: ConnectionState;
}) {
  const { host } = useServices();
  const [menu, setMenu] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const status = displayStatus(session, connection);
  const menuRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!menu) return;
    const onDown = (event: MouseEvent) => {
      if (!menuRef.current?.parentElement?.contains(event.target as Node)) setMenu(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [menu]);

  const reason = session.lastError?.message;
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
          {error !== null && <span className="composer-error">{error}</span>}
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
        </a>
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
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              setMenu(false);
              setRenaming(true);
            }}
          >
            Rename
          </button>
          {!session.closed && (
            <button
              type="button"
              role="menuitem"
              onClick={() => {
                setMenu(false);
                void host.close(session.id);
              }}
            >
              Close session
            </button>
          )}
        </div>
      )}
    </li>
  );
}
