import { useEffect, useState } from 'react';
import { useServices } from './appContext.ts';
import { useAttention } from './attention.ts';
import { Banner } from './Banner.tsx';
import { ErrorBoundary } from './ErrorBoundary.tsx';
import { HistoryTranscriptView } from './HistoryTranscriptView.tsx';
import { HistoryView } from './HistoryView.tsx';
import { useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { InboxView } from './InboxView.tsx';
import { NewSessionDialog } from './NewSessionDialog.tsx';
import { useRoute } from './route.ts';
import { SessionSwitcher } from './SessionSwitcher.tsx';
import { SessionView } from './SessionView.tsx';
import { Sidebar } from './Sidebar.tsx';
import { Topbar } from './Topbar.tsx';
import { useTheme } from './theme.ts';

export function App() {
  const { host } = useServices();
  const screen = useValue(host.screen);
  const route = useRoute();
  const [theme, cycleTheme] = useTheme();
  const [sidebarOpen, setSidebarOpen] = useState(false);
  useAttention(screen.view);
  // Following a link closes the phone drawer.
  // biome-ignore lint/correctness/useExhaustiveDependencies: close on every route change
  useEffect(() => setSidebarOpen(false), [route]);
  const openSidebar = () => setSidebarOpen(true);
  const [switching, setSwitching] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setSwitching(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to the conversation
      </a>
      <Sidebar
        route={route}
        open={sidebarOpen}
        theme={theme}
        onTheme={cycleTheme}
        onCloseDrawer={() => setSidebarOpen(false)}
      />
      <div className="backdrop" data-open={sidebarOpen} onClick={() => setSidebarOpen(false)} aria-hidden="true" />
      <main className="main" id="main">
        {screen.connection === 'unauthorized' && (
          <Banner>
            This browser is not signed in to the host. Open the link with <code>?token=…</code> that the host printed
            when it started.
          </Banner>
        )}
        {screen.loadError !== null && screen.connection !== 'unauthorized' && (
          <Banner
            action={
              <button type="button" className="btn btn-small" onClick={() => window.location.reload()}>
                Retry
              </button>
            }
          >
            The host did not answer: {screen.loadError}. Is it running?
          </Banner>
        )}
        <ErrorBoundary
          resetKey={
            route.page === 'session'
              ? route.sessionId
              : route.page === 'historySession'
                ? route.claudeSessionId
                : route.page
          }
        >
          {route.page === 'session' ? (
            <SessionView key={route.sessionId} sessionId={route.sessionId} onOpenSidebar={openSidebar} />
          ) : route.page === 'inbox' ? (
            <InboxView onOpenSidebar={openSidebar} />
          ) : route.page === 'history' ? (
            <HistoryView onOpenSidebar={openSidebar} />
          ) : route.page === 'historySession' ? (
            <HistoryTranscriptView
              key={route.claudeSessionId}
              claudeSessionId={route.claudeSessionId}
              onOpenSidebar={openSidebar}
            />
          ) : (
            <Home onOpenSidebar={openSidebar} />
          )}
        </ErrorBoundary>
      </main>
      {switching && <SessionSwitcher onClose={() => setSwitching(false)} />}
    </div>
  );
}

function Home({ onOpenSidebar }: { onOpenSidebar: () => void }) {
  const { host } = useServices();
  const screen = useValue(host.screen);
  const [creating, setCreating] = useState(false);
  const firstRun = screen.view.loaded && Object.keys(screen.view.sessions).length === 0;
  return (
    <section className="conversation" aria-label="Welcome">
      <Topbar heading="Outrigger" onOpenSidebar={onOpenSidebar} />
      <div className="empty">
        <h2>{firstRun ? 'Start your first session' : 'Pick a session, or start a new one'}</h2>
        <p>
          Each session is a Claude Code agent working in a directory. You can run several at once.
          {firstRun && screen.info?.modelBackend === 'demo' && (
            <> No API key was found, so an offline demo model answers: it shows each feature without calling Claude.</>
          )}
        </p>
        {/* The first thing a first run needs, where it looks (on a phone the sidebar is folded away). */}
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
          <Icon name="plus" /> Start a session
        </button>
      </div>
      {creating && <NewSessionDialog onClose={() => setCreating(false)} />}
    </section>
  );
}
