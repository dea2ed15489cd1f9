import type { HistoryProject, HistorySession } from '@outrigger/host-api';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { formatAgo } from '../data/format.ts';
import { historyRows } from '../data/historyRows.ts';
import { HistoryStore } from '../data/historyStore.ts';
import { useServices } from './appContext.ts';
import { Banner } from './Banner.tsx';
import { useNow, useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { historySessionHref } from './route.ts';
import { Topbar } from './Topbar.tsx';
import './history.css';

/** The history store of this view: its stream is open only while the view is shown and the tab visible. */
function useHistoryStore(): HistoryStore {
  const { client } = useServices();
  const store = useMemo(() => new HistoryStore(client), [client]);
  useEffect(() => {
    const onVisibility = () => (document.visibilityState === 'hidden' ? store.pause() : store.resume());
    void store.start();
    if (document.visibilityState === 'hidden') store.pause();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      store.stop();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [store]);
  return store;
}

/**
 * Claude Code's sessions on this machine, by project directory, searchable; the list is virtualized (only the
 * lines in view are mounted), so a history of thousands of sessions opens and scrolls like a short one.
 */
export function HistoryView({ onOpenSidebar }: { onOpenSidebar: () => void }) {
  const store = useHistoryStore();
  const screen = useValue(store.screen);
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const list = screen.list;
  const searching = screen.query.trim() !== '';
  const rows = useMemo(() => (list === null ? [] : historyRows(list, folded, searching)), [list, folded, searching]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (rows[index]?.kind === 'project' ? 44 : 58),
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 12,
  });
  const now = useNow(true, 60_000);
  const toggle = (cwd: string) =>
    setFolded((current) => {
      const next = new Set(current);
      if (!next.delete(cwd)) next.add(cwd);
      return next;
    });

  const projects = list?.projects.length ?? 0;
  const countText =
    list === null
      ? 'Loading…'
      : screen.searching
        ? 'Searching…'
        : `${list.total} ${list.total === 1 ? 'session' : 'sessions'} in ${projects} ${projects === 1 ? 'folder' : 'folders'}${searching ? ' match' : ''}`;

  return (
    <section className="conversation history-page" aria-labelledby="history-heading">
      <Topbar
        heading="Claude Code history"
        headingId="history-heading"
        subtitle={
          <span className="subtitle">
            Sessions Claude Code keeps{list === null ? '' : ` in ${list.configDir}`}, from the terminal or any program
          </span>
        }
        onOpenSidebar={onOpenSidebar}
      />
      {screen.error !== null && (
        <Banner
          action={
            <button type="button" className="btn btn-small" onClick={() => void store.reload()}>
              Retry
            </button>
          }
        >
          The history could not be read: {screen.error}
        </Banner>
      )}
      <div className="history-tools">
        <search className="history-search">
          <input
            className="input"
            type="search"
            value={screen.query}
            placeholder="Search titles, prompts, folders and branches"
            aria-label="Search Claude Code history"
            aria-describedby="history-count"
            onChange={(event) => store.search(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') store.search('');
            }}
          />
        </search>
        <p className="history-count small muted" id="history-count" role="status">
          {countText}
        </p>
        {list?.indexState === 'indexing' && (
          <p className="history-note small" role="status">
            <Icon name="refresh" />
            <span>Reading Claude Code’s transcripts for the first time: the list fills in as they are read.</span>
          </p>
        )}
        {list !== null && list.hiddenOutsideRoots > 0 && (
          <p className="history-note small muted">
            <span>
              {list.hiddenOutsideRoots} {list.hiddenOutsideRoots === 1 ? 'session is' : 'sessions are'} not listed: they
              ran in folders outside the ones this host may use (<code>--allow-root</code> when it started).
            </span>
          </p>
        )}
      </div>
      <div className="history-scroll" ref={scroller}>
        {list !== null && rows.length === 0 && (
          <div className="empty">
            <h2>{searching ? 'No session matches' : 'No Claude Code sessions yet'}</h2>
            <p>
              {searching
                ? 'Search looks at titles, first prompts, folders and git branches.'
                : `Sessions you run with claude in a terminal appear here as they are written (${list.configDir}/projects).`}
            </p>
          </div>
        )}
        <div className="history-inner" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((virtual) => {
            const row = rows[virtual.index];
            if (row === undefined) return null;
            return (
              <div
                key={virtual.key}
                className="history-row"
                data-index={virtual.index}
                ref={virtualizer.measureElement}
                style={{ transform: `translateY(${virtual.start}px)` }}
              >
                {row.kind === 'project' ? (
                  <ProjectHeader project={row.project} open={row.open} onToggle={() => toggle(row.project.cwd)} />
                ) : (
                  <SessionLine session={row.session} now={now} last={row.last} />
                )}
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}

function ProjectHeader({ project, open, onToggle }: { project: HistoryProject; open: boolean; onToggle: () => void }) {
  const count = project.sessions.length;
  return (
    <h2 className="history-project">
      <button type="button" aria-expanded={open} onClick={onToggle} title={project.cwd}>
        <Icon name="chevron" className="chevron" />
        <Icon name="folder" />
        <span className="history-cwd">{project.cwd}</span>
        {!project.cwdExists && <span className="tag tag-red">Folder gone</span>}
        <span className="history-project-count">
          {count} <span className="sr-only">{count === 1 ? 'session' : 'sessions'}</span>
        </span>
      </button>
    </h2>
  );
}

function SessionLine({ session, now, last }: { session: HistorySession; now: number; last: boolean }) {
  return (
    <a className="history-session" data-last={last} href={historySessionHref(session.claudeSessionId)}>
      <span className="history-title">{session.title}</span>
      <span className="history-meta small">
        <span title={new Date(session.lastActivityAt).toLocaleString()}>{formatAgo(session.lastActivityAt, now)}</span>
        <span>
          · {session.messageCount} {session.messageCount === 1 ? 'message' : 'messages'}
        </span>
        {session.gitBranch !== null && (
          <span className="branch">
            · <Icon name="branch" />
            <span className="sr-only">branch </span>
            {session.gitBranch}
          </span>
        )}
        {session.recentlyActive && <span className="tag tag-amber">Active just now</span>}
        {session.outriggerSessionId !== null && <span className="tag">In Outrigger</span>}
      </span>
    </a>
  );
}
