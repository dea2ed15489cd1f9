import { useEffect, useMemo, useState } from 'react';
import { formatAgo } from '../data/format.ts';
import { continueOffer } from '../data/historyContinue.ts';
import { HistoryTranscriptStore } from '../data/historyTranscriptStore.ts';
import { timeline } from '../data/timeline.ts';
import { useServices } from './appContext.ts';
import { ContinueDialog } from './ContinueDialog.tsx';
import { useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { historyHref, sessionHref } from './route.ts';
import { Topbar } from './Topbar.tsx';
import { Transcript } from './Transcript.tsx';
import { readOnlyActions } from './transcriptActions.ts';
import './history.css';

const noSends: readonly string[] = [];

/**
 * One Claude Code session's transcript, read-only, in the rows and cards of a live session, paged like a
 * conversation; what the reader skipped or could not show is said above it, and "Continue in Outrigger" sits
 * where a session's composer is.
 */
export function HistoryTranscriptView({
  claudeSessionId,
  onOpenSidebar,
}: {
  claudeSessionId: string;
  onOpenSidebar: () => void;
}) {
  const { client } = useServices();
  const store = useMemo(() => new HistoryTranscriptStore(client, claudeSessionId), [client, claudeSessionId]);
  useEffect(() => {
    void store.start();
    return () => store.stop();
  }, [store]);
  const screen = useValue(store.screen);
  const items = useMemo(() => timeline(screen.view), [screen.view]);
  const [continuing, setContinuing] = useState(false);
  const session = screen.session;

  if (screen.loadError !== null && session === null)
    return (
      <section className="conversation history-page" aria-label="Claude Code session">
        <Topbar heading="Claude Code session" onOpenSidebar={onOpenSidebar} />
        <div className="empty" role="alert">
          <h2>This transcript could not be opened</h2>
          <p>{screen.loadError}</p>
          <a className="btn" href={historyHref}>
            Back to the history
          </a>
        </div>
      </section>
    );
  if (session === null)
    return (
      <div className="empty" aria-busy="true">
        <p>Reading the transcript…</p>
      </div>
    );

  const offer = continueOffer(session);
  return (
    <section className="conversation history-page" aria-label={`Claude Code session ${session.title}`}>
      <Topbar
        heading={session.title}
        subtitle={
          <span className="subtitle worktree-subtitle" title={session.cwd}>
            <span className="cwd">{session.cwd}</span>
            {session.gitBranch !== null && (
              <span className="branch">
                <Icon name="branch" />
                <span className="sr-only">branch </span>
                {session.gitBranch}
              </span>
            )}
          </span>
        }
        onOpenSidebar={onOpenSidebar}
      >
        <a className="btn btn-ghost btn-small" href={historyHref}>
          <Icon name="history" /> All history
        </a>
      </Topbar>
      <section className="history-notes" aria-label="About this transcript">
        <p className="small muted">
          Claude Code’s transcript, read-only: {session.messageCount}{' '}
          {session.messageCount === 1 ? 'message' : 'messages'}, last written{' '}
          {formatAgo(session.lastActivityAt, Date.now())}.
        </p>
        {screen.notes.length > 0 && (
          <ul>
            {screen.notes.map((note) => (
              <li key={note.kind} className="history-note" data-kind={note.kind}>
                <Icon name="alert" /> {note.message}
              </li>
            ))}
          </ul>
        )}
        {screen.loadError !== null && (
          <p className="composer-error" role="alert">
            {screen.loadError}
          </p>
        )}
      </section>
      <Transcript
        items={items}
        sendIds={noSends}
        actions={readOnlyActions}
        hasOlder={screen.view.hasOlder}
        loadingOlder={screen.loadingOlder}
        onLoadOlder={() => store.loadOlder()}
        empty={
          <div className="empty">
            <h2>Nothing to show</h2>
            <p>This transcript holds no messages Outrigger can show.</p>
          </div>
        }
        after={<div style={{ paddingBottom: 16 }} />}
      />
      <footer className="history-continue">
        {offer.kind === 'continued' ? (
          <>
            <span className="small muted">An Outrigger session already continues it.</span>
            <a className="btn btn-primary" href={sessionHref(offer.sessionId)}>
              Open in Outrigger
            </a>
          </>
        ) : (
          <>
            <span className="small muted" id="continue-why">
              {offer.kind === 'gone' ? offer.reason : 'Go on with this session in Outrigger.'}
            </span>
            <button
              type="button"
              className="btn btn-primary"
              disabled={offer.kind === 'gone'}
              aria-describedby="continue-why"
              onClick={() => setContinuing(true)}
            >
              Continue in Outrigger
            </button>
          </>
        )}
      </footer>
      {continuing && <ContinueDialog session={session} onClose={() => setContinuing(false)} />}
    </section>
  );
}
