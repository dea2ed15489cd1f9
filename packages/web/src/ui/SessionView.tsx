import type { Interaction, PostTurnBody } from '@outrigger/host-api';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { finishedBackgroundJobs } from '../data/backgroundJobs.ts';
import { ChangesStore } from '../data/changesStore.ts';
import { displayStatus } from '../data/displayStatus.ts';
import { withEarlierHistory } from '../data/earlierHistory.ts';
import { formatDuration } from '../data/format.ts';
import type { OutgoingPrompt } from '../data/outbox.ts';
import { rewindBlockedReason } from '../data/rewindPlan.ts';
import type { SessionViewState } from '../data/sessionState.ts';
import { SessionStore } from '../data/sessionStore.ts';
import { timeline } from '../data/timeline.ts';
import { WorktreeStore } from '../data/worktreeStore.ts';
import { useServices } from './appContext.ts';
import { Banner } from './Banner.tsx';
import { ClosedComposer, Composer } from './Composer.tsx';
import { DemoPrompts } from './DemoPrompts.tsx';
import { FilesChangedPanel } from './FilesChangedPanel.tsx';
import { useNow, useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { RewindDialog } from './RewindDialog.tsx';
import { type Review, ReviewContext } from './reviewContext.ts';
import { navigate, sessionHref } from './route.ts';
import { SettingsBar } from './SettingsBar.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import { BackgroundWork, type TaskActions, TaskPanel } from './TaskPanel.tsx';
import { TerminalButton } from './TerminalCommand.tsx';
import { Topbar } from './Topbar.tsx';
import { Transcript } from './Transcript.tsx';
import { TurnChanges } from './TurnChanges.tsx';
import type { TranscriptActions } from './transcriptActions.ts';
import { useEarlierHistory } from './useEarlierHistory.ts';
import { useRerun } from './useRerun.ts';
import { WorktreePanel } from './WorktreePanel.tsx';

/** A hidden tab keeps its session stream this long (switching back and forth reconnects nothing). */
const HIDDEN_GRACE_MS = 10_000;

function useSessionStore(sessionId: string): SessionStore {
  const { client } = useServices();
  const store = useMemo(() => new SessionStore(client, sessionId), [client, sessionId]);
  useEffect(() => {
    let pauseTimer: ReturnType<typeof setTimeout> | undefined;
    // A hidden tab lets go of its stream: the browser's six connections per host are shared by every tab.
    const onVisibility = () => {
      clearTimeout(pauseTimer);
      if (document.visibilityState === 'hidden') {
        pauseTimer = setTimeout(() => store.pause(), HIDDEN_GRACE_MS);
        return;
      }
      store.resume();
      store.reconnectNow();
    };
    const online = () => {
      if (document.visibilityState === 'visible') store.reconnectNow();
    };
    if (document.visibilityState === 'hidden') store.pause();
    else store.resume();
    void store.start();
    window.addEventListener('online', online);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearTimeout(pauseTimer);
      store.stop();
      window.removeEventListener('online', online);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [store]);
  return store;
}

/**
 * The session's changes and (for a worktree session) its branch: stores that reload from the host on the
 * session stream's events rather than fold them. The worktree's only loads once the session has one.
 */
function useReviewStores(
  store: SessionStore,
  hasWorktree: boolean,
): { changes: ChangesStore; worktree: WorktreeStore } {
  const { client } = useServices();
  const changes = useMemo(() => new ChangesStore(client, store.sessionId), [client, store]);
  const worktree = useMemo(() => new WorktreeStore(client, store.sessionId), [client, store]);
  useEffect(() => {
    void changes.start();
    const unlisten = store.onEvent((event) => changes.onEvent(event));
    return () => {
      unlisten();
      changes.stop();
    };
  }, [store, changes]);
  useEffect(() => {
    if (!hasWorktree) return;
    void worktree.start();
    const unlisten = store.onEvent((event) => worktree.onEvent(event));
    return () => {
      unlisten();
      worktree.stop();
    };
  }, [store, worktree, hasWorktree]);
  return { changes, worktree };
}

/** Prompts of this session still on their way, minus those the stream already shows. */
function unsettled(items: readonly OutgoingPrompt[], view: SessionViewState): OutgoingPrompt[] {
  const seen = new Set<string>();
  for (const id of view.order) {
    const clientMessageId = view.rows[id]?.clientMessageId;
    if (clientMessageId != null) seen.add(clientMessageId);
  }
  for (const queued of view.queuedPrompts) if (queued.clientMessageId !== null) seen.add(queued.clientMessageId);
  for (const turn of Object.values(view.turns)) if (turn.clientMessageId !== null) seen.add(turn.clientMessageId);
  return items.filter((item) => item.sessionId === view.sessionId && !seen.has(item.clientMessageId));
}

export function SessionView({ sessionId, onOpenSidebar }: { sessionId: string; onOpenSidebar: () => void }) {
  const { host, outbox } = useServices();
  const store = useSessionStore(sessionId);
  const screen = useValue(store.screen);
  const hostScreen = useValue(host.screen);
  const outgoing = useValue(outbox.items);
  const [panelOpen, setPanelOpen] = useState(false);
  const panelToggle = useRef<HTMLButtonElement>(null);
  const [prefill, setPrefill] = useState<{ text: string; nonce: number } | null>(null);
  const [rewinding, setRewinding] = useState<string | null>(null);
  const view = screen.view;
  const session = view.session;
  const stores = useReviewStores(store, session?.worktree != null);
  const blockedReason = rewindBlockedReason(view);
  const review = useMemo<Review>(
    () => ({ changes: stores.changes, blockedReason, openRewind: setRewinding }),
    [stores.changes, blockedReason],
  );
  const history = useEarlierHistory(session?.continuedFrom ?? null);
  const ownItems = useMemo(() => timeline(view), [view]);
  const items = useMemo(
    () => withEarlierHistory(ownItems, history.earlier, view.hasOlder),
    [ownItems, history.earlier, view.hasOlder],
  );
  const toggleEarlier = history.toggle;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the jobs are read from the rows, their order and the running list
  const finishedJobs = useMemo(() => finishedBackgroundJobs(view), [view.rows, view.order, view.backgroundTasks]);
  const pendingSends = useMemo(() => unsettled(outgoing, view), [outgoing, view]);
  const sendIds = useMemo(() => pendingSends.map((item) => item.clientMessageId), [pendingSends]);
  const rerun = useRerun(store, view);

  // Forget accepted sends once the stream shows them, so the outbox does not grow.
  useEffect(() => {
    const shown = outgoing.filter(
      (item) => item.sessionId === sessionId && item.state === 'accepted' && !pendingSends.includes(item),
    );
    for (const item of shown) outbox.forget(item.clientMessageId);
  }, [outgoing, pendingSends, outbox, sessionId]);

  const answer = useCallback(
    (interaction: Interaction) => async (body: Parameters<SessionStore['answer']>[1]) => {
      await store.answer(interaction, body);
      host.interactionClosed(interaction.requestId);
    },
    [store, host],
  );
  const actions = useMemo<TranscriptActions>(
    () => ({
      answer,
      fullResult: (toolUseId) => store.fullToolResult(toolUseId),
      fork: async (turnId) => {
        const forked = await host.fork(sessionId, turnId);
        navigate(sessionHref(forked.id));
      },
      timedOutAfter: (toolUseId) => store.view.toolTimeouts[toolUseId],
      rerun,
      toggleEarlier,
    }),
    [answer, store, host, sessionId, rerun, toggleEarlier],
  );
  const taskActions = useMemo<TaskActions>(
    () => ({
      add: (title) => store.addTask(title),
      update: (taskId, change) => store.updateTask(taskId, change),
      remove: (taskId) => store.deleteTask(taskId),
    }),
    [store],
  );
  const runningTurn = session?.runningTurnId == null ? undefined : view.turns[session.runningTurnId];
  const now = useNow(runningTurn !== undefined);
  const connectionDown = screen.connection === 'disconnected' || screen.connection === 'unauthorized';

  if (screen.loadError !== null && session === null)
    return (
      <div className="empty" role="alert">
        <h2>This session could not be opened</h2>
        <p>{screen.loadError}</p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>
          <Icon name="refresh" /> Try again
        </button>
      </div>
    );
  if (session === null)
    return (
      <div className="empty" aria-busy="true">
        <p>Loading the session…</p>
      </div>
    );

  const status = displayStatus(session, screen.connection);
  const isDemo = hostScreen.info?.modelBackend === 'demo';
  const stall = runningTurn === undefined ? undefined : view.stalls[runningTurn.id];
  const sendPrompt = (prompt: string) => {
    const body: Omit<PostTurnBody, 'clientMessageId'> = { prompt };
    void outbox.send(sessionId, body);
  };

  return (
    <ReviewContext.Provider value={review}>
      <div className="session-layout">
        <section className="conversation" aria-label={`Session ${session.title}`}>
          <Topbar
            heading={session.title}
            subtitle={
              session.worktree === null ? (
                <span className="cwd" title={session.cwd}>
                  {session.cwd}
                </span>
              ) : (
                <span className="subtitle worktree-subtitle" title={`Worktree ${session.worktree.path}`}>
                  <span className="cwd">{session.worktree.repoRoot}</span>
                  <span className="branch">
                    <Icon name="branch" />
                    <span className="sr-only">branch </span>
                    {session.worktree.branch}
                  </span>
                </span>
              )
            }
            onOpenSidebar={onOpenSidebar}
          >
            <StatusBadge
              status={status}
              title={
                status === 'failed'
                  ? session.lastError?.message
                  : status === 'disconnected'
                    ? 'The live stream is down; reconnecting'
                    : status === 'paused'
                      ? 'You stopped the turn: the queued prompts wait until you run or resume them'
                      : undefined
              }
              runningSinceMs={runningTurn?.startedAt ?? null}
              now={now}
            />
            <TerminalButton command={session.terminalCommand} />
            <button
              type="button"
              ref={panelToggle}
              className="icon-btn panel-toggle"
              aria-label="Show tasks and changes"
              aria-expanded={panelOpen}
              onClick={() => setPanelOpen((open) => !open)}
            >
              <Icon name="panel" />
            </button>
          </Topbar>
          <SettingsBar session={session} update={(body) => store.updateSettings(body)} />
          {connectionDown && (
            <Banner
              tone="warn"
              action={
                screen.connection === 'disconnected' && (
                  <button type="button" className="btn btn-small" onClick={() => store.reconnectNow()}>
                    Reconnect now
                  </button>
                )
              }
            >
              {screen.connection === 'unauthorized' ? (
                <>
                  The host no longer accepts this browser. Open the link with <code>?token=…</code> that the host
                  printed when it started.
                </>
              ) : (
                'Disconnected from the host. Reconnecting; nothing is lost: what happened meanwhile is replayed.'
              )}
            </Banner>
          )}
          {session.status === 'failed' && session.lastError !== null && (
            <Banner>
              <strong>The last turn failed:</strong> {session.lastError.message}
            </Banner>
          )}
          {view.notices.map((notice) => (
            <Banner
              key={notice.seq}
              action={
                <button
                  type="button"
                  className="icon-btn"
                  aria-label="Dismiss"
                  onClick={() => store.dispatch({ type: 'noticeDismissed', seq: notice.seq })}
                >
                  <Icon name="close" />
                </button>
              }
            >
              {notice.message}
            </Banner>
          ))}
          <Transcript
            items={items}
            sendIds={sendIds}
            actions={actions}
            hasOlder={view.hasOlder || history.hasOlder}
            loadingOlder={screen.loadingOlder || history.loadingOlder}
            // The session's own older rows first; its Claude Code history above them, once opened.
            onLoadOlder={() => (view.hasOlder ? store.loadOlder() : history.loadOlder())}
            empty={
              pendingSends.length === 0 ? (
                <div className="empty">
                  <h2>{isDemo ? 'Try the demo model' : 'Start the conversation'}</h2>
                  {isDemo ? (
                    <>
                      <p>No API key was found, so a scripted offline model answers. Each prompt shows a feature:</p>
                      <DemoPrompts onPick={sendPrompt} disabled={session.closed} />
                    </>
                  ) : (
                    <p>Claude works in {session.cwd}. Ask it to do something.</p>
                  )}
                </div>
              ) : null
            }
            after={
              <div className="column" style={{ paddingBottom: 16 }}>
                {pendingSends.map((item) => (
                  <PendingBubble
                    key={item.clientMessageId}
                    item={item}
                    onRetry={() => void outbox.retry(item.clientMessageId)}
                    onEdit={() => {
                      outbox.forget(item.clientMessageId);
                      setPrefill({ text: item.body.prompt, nonce: Date.now() });
                    }}
                  />
                ))}
                {runningTurn !== undefined && (
                  <div className="small muted" role="status" style={{ padding: '6px 0' }}>
                    {stall !== undefined
                      ? `The model has been silent for ${formatDuration(stall)}…`
                      : Object.values(view.interactions).some((interaction) => interaction.status === 'pending')
                        ? 'Waiting for your answer above.'
                        : 'Claude is working…'}
                  </div>
                )}
                {runningTurn !== undefined && runningTurn.kind === 'user' && (
                  <TurnChanges turnId={runningTurn.id} running />
                )}
              </div>
            }
          />
          {session.closed ? (
            <ClosedComposer
              lastTurnId={items.findLast((item) => item.kind === 'footer')?.turn.id}
              fork={actions.fork}
            />
          ) : (
            <Composer
              key={sessionId}
              sessionId={sessionId}
              busyTurnId={session.runningTurnId}
              queued={view.queuedPrompts}
              disconnected={connectionDown}
              cancel={(turnId) => store.cancel(turnId)}
              queueActions={{
                edit: (turnId, prompt) => store.editQueued(turnId, prompt),
                runNow: (turnId) => store.runQueued(turnId),
                resume: () => store.resumeQueue(),
              }}
              prefill={prefill}
            />
          )}
        </section>
        <aside
          className="side-panel"
          data-open={panelOpen}
          aria-label="Tasks and changes"
          onKeyDown={(event) => {
            // On a narrow screen the panel covers the conversation: Escape closes it, as it closes a dialog (one of
            // its own dialogs, a file's diff, closes first and alone).
            if (event.key !== 'Escape' || !panelOpen || (event.target as Element).closest('dialog')) return;
            setPanelOpen(false);
            panelToggle.current?.focus();
          }}
        >
          <div className="panel-section panel-close">
            <button type="button" className="icon-btn" aria-label="Close the panel" onClick={() => setPanelOpen(false)}>
              <Icon name="close" />
            </button>
          </div>
          {session.worktree !== null && (
            <WorktreePanel store={stores.worktree} worktree={session.worktree} blockedReason={blockedReason} />
          )}
          <TaskPanel tasks={view.tasks} actions={taskActions} closed={session.closed} />
          <BackgroundWork tasks={view.backgroundTasks} finished={finishedJobs} />
          <FilesChangedPanel />
        </aside>
        {rewinding !== null && <RewindDialog turnId={rewinding} view={view} onClose={() => setRewinding(null)} />}
      </div>
    </ReviewContext.Provider>
  );
}

function PendingBubble({ item, onRetry, onEdit }: { item: OutgoingPrompt; onRetry: () => void; onEdit: () => void }) {
  return (
    <div className="msg-user" style={{ flexDirection: 'column', alignItems: 'flex-end', padding: '6px 0' }}>
      <div className="bubble pending">{item.body.prompt}</div>
      {item.state === 'failed' ? (
        <div className="bubble-meta error" role="alert">
          Not sent: {item.error}{' '}
          <button type="button" className="btn btn-small" onClick={onRetry}>
            Retry
          </button>{' '}
          <button type="button" className="btn btn-small" onClick={onEdit}>
            Edit
          </button>
        </div>
      ) : (
        <div className="bubble-meta">
          {item.state === 'waiting' ? `${item.error ?? 'Retrying'}` : item.state === 'accepted' ? 'Sent' : 'Sending…'}
        </div>
      )}
    </div>
  );
}
