import { type CancelTurnResponse, HostApiError, type PostTurnBody, type QueuedPrompt } from '@outrigger/host-api';
import { useEffect, useRef, useState } from 'react';
import { attachmentProblem, type ImageAttachment, readAttachment } from '../data/attachments.ts';
import { messageOf } from '../data/format.ts';
import { useServices } from './appContext.ts';
import { useComposerCompletions } from './ComposerCompletions.tsx';
import { ForkButton } from './ForkButton.tsx';
import { Icon } from './Icon.tsx';
import { type QueueActions, QueuedPrompts } from './QueuedPrompts.tsx';

/**
 * Where the person writes. Enter sends, Shift+Enter adds a line, Esc stops the running turn. While a
 * turn runs, Send becomes Queue (a removable chip) with Steer now beside it. The draft is saved per
 * session as it is typed; Stop says what happened.
 */
export function Composer({
  sessionId,
  busyTurnId,
  queued,
  disconnected,
  cancel,
  queueActions: queueCalls,
  prefill,
}: {
  sessionId: string;
  busyTurnId: string | null;
  queued: readonly QueuedPrompt[];
  disconnected: boolean;
  cancel: (turnId: string) => Promise<CancelTurnResponse>;
  /** Run now, Edit and Resume of queued prompts (Remove is `cancel`). */
  queueActions: Omit<QueueActions, 'remove'>;
  prefill: { text: string; nonce: number } | null;
}) {
  const { outbox, drafts } = useServices();
  const [text, setText] = useState(() => drafts.get(sessionId));
  const [images, setImages] = useState<ImageAttachment[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [stopOutcome, setStopOutcome] = useState<string | null>(null);
  const [stopping, setStopping] = useState(false);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const busy = busyTurnId !== null;

  useEffect(() => {
    if (prefill === null) return;
    setText(prefill.text);
    drafts.set(sessionId, prefill.text);
    textarea.current?.focus();
  }, [prefill, drafts, sessionId]);

  // Grow with the text up to the CSS max height.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-measure when the text changes
  useEffect(() => {
    const element = textarea.current;
    if (element === null) return;
    element.style.height = 'auto';
    element.style.height = `${element.scrollHeight}px`;
  }, [text]);

  const change = (value: string) => {
    setText(value);
    drafts.set(sessionId, value);
  };
  const completions = useComposerCompletions({ sessionId, text, textarea, setText: change });

  const send = (mode: PostTurnBody['mode']) => {
    const prompt = text.trim();
    if (prompt === '' && images.length === 0) return;
    const content = images.map((image) => ({
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: image.mediaType, data: image.data },
    }));
    void outbox.send(sessionId, {
      prompt,
      ...(content.length > 0 ? { content } : {}),
      ...(busy ? { mode: mode ?? 'queue' } : {}),
    });
    change('');
    setImages([]);
    setProblem(null);
    setStopOutcome(null);
  };

  const queueActions: QueueActions = { ...queueCalls, remove: cancel };

  // A turn that starts after a Stop (Run now, Resume queue, a new send) makes what the Stop said old news.
  useEffect(() => {
    if (busyTurnId !== null) setStopOutcome(null);
  }, [busyTurnId]);

  const stop = () => {
    if (busyTurnId === null || stopping) return;
    setStopping(true);
    setStopOutcome('Stopping…');
    // The host pauses what waits behind the stopped turn (Stop must stop): say so, so nobody waits for it.
    const waiting = queued.filter((prompt) => !prompt.paused).length;
    const pausedNote =
      waiting === 0 ? '' : ` ${waiting === 1 ? 'The queued prompt is' : `${waiting} queued prompts are`} paused.`;
    cancel(busyTurnId).then(
      (response) => {
        setStopping(false);
        setStopOutcome(
          response.canceled
            ? response.disposition === 'pre_accept'
              ? 'Stopped before it started.'
              : `Stopped.${pausedNote}`
            : 'The turn had already ended.',
        );
      },
      (error: unknown) => {
        setStopping(false);
        setStopOutcome(`Could not stop: ${messageOf(error)}`);
      },
    );
  };

  const editLastQueued = () => {
    const last = queued.at(-1);
    if (last === undefined) return false;
    cancel(last.turnId).then(
      () => change(last.prompt),
      (error: unknown) => setProblem(error instanceof HostApiError ? error.message : 'Could not take it back.'),
    );
    return true;
  };

  const attach = async (files: Iterable<File>) => {
    const added: ImageAttachment[] = [];
    for (const file of files) {
      const why = attachmentProblem(file, images.length + added.length);
      if (why !== null) {
        setProblem(why);
        continue;
      }
      added.push(await readAttachment(file));
    }
    if (added.length > 0) setImages((current) => [...current, ...added]);
  };

  return (
    <div className="composer-wrap">
      {completions.popup}
      <div className="composer">
        <QueuedPrompts queued={queued} busy={busy} actions={queueActions} />
        {images.length > 0 && (
          <ul className="chips" aria-label="Attached images" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {images.map((image) => (
              <li key={image.id} className="chip">
                <span className="chip-text">{image.name}</span>
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={`Remove ${image.name}`}
                  onClick={() => setImages((current) => current.filter((candidate) => candidate.id !== image.id))}
                >
                  <Icon name="close" />
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="composer-box">
          <label htmlFor={`composer-${sessionId}`} className="sr-only">
            Message
          </label>
          <textarea
            id={`composer-${sessionId}`}
            ref={textarea}
            rows={1}
            value={text}
            placeholder={busy ? 'Queue a follow-up, or steer the running turn…' : 'Ask Claude to do something…'}
            onChange={(event) => change(event.currentTarget.value)}
            onPaste={(event) => {
              const files = [...event.clipboardData.files].filter((file) => file.type.startsWith('image/'));
              if (files.length > 0) {
                event.preventDefault();
                void attach(files);
              }
            }}
            {...completions.inputProps}
            onKeyDown={(event) => {
              if (completions.onKeyDown(event)) return;
              if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                event.preventDefault();
                send('queue');
              } else if (event.key === 'Escape' && busy) {
                event.preventDefault();
                stop();
              } else if (event.key === 'ArrowUp' && text === '' && editLastQueued()) {
                event.preventDefault();
              }
            }}
          />
          <div className="composer-row">
            <input
              ref={fileInput}
              type="file"
              accept="image/png,image/jpeg,image/gif,image/webp"
              multiple
              hidden
              onChange={(event) => {
                void attach(event.currentTarget.files ?? []);
                event.currentTarget.value = '';
              }}
            />
            <button
              type="button"
              className="icon-btn"
              aria-label="Attach images"
              title="Attach images (PNG, JPEG, GIF, WebP; up to 5 MB)"
              onClick={() => fileInput.current?.click()}
            >
              <Icon name="attach" />
            </button>
            <span className="hint">
              {stopOutcome !== null ? (
                <span className="stop-outcome" role="status">
                  {stopOutcome}
                </span>
              ) : disconnected ? (
                'Offline: what you send is retried until the host answers.'
              ) : busy ? (
                'Enter queues · Esc stops'
              ) : (
                'Enter sends · Shift+Enter new line'
              )}
            </span>
            <span className="spacer" />
            {busy ? (
              <>
                <button type="button" className="btn btn-danger" onClick={stop} disabled={stopping}>
                  <Icon name="stop" /> Stop
                </button>
                <button
                  type="button"
                  className="btn"
                  onClick={() => send('steer')}
                  disabled={text.trim() === '' && images.length === 0}
                  title="Send into the running turn now"
                >
                  <Icon name="steer" /> Steer now
                </button>
                <button
                  type="button"
                  className="btn btn-primary"
                  onClick={() => send('queue')}
                  disabled={text.trim() === '' && images.length === 0}
                >
                  Queue
                </button>
              </>
            ) : (
              <button
                type="button"
                className="btn btn-primary"
                onClick={() => send(undefined)}
                disabled={text.trim() === '' && images.length === 0}
              >
                <Icon name="send" /> Send
              </button>
            )}
          </div>
        </div>
        {problem !== null && (
          <div className="composer-error" role="alert">
            {problem}
          </div>
        )}
      </div>
    </div>
  );
}

/** In place of the composer once the session is closed: why nothing can be sent, and the way on. */
export function ClosedComposer({
  lastTurnId,
  fork,
}: {
  lastTurnId: string | undefined;
  fork: (turnId: string) => Promise<void>;
}) {
  return (
    <div className="composer-wrap">
      <div className="composer closed-composer" role="status">
        <p className="small">
          <strong>This session is closed</strong>, so it takes no new prompts. Its history stays here; to go on, fork it{' '}
          {lastTurnId === undefined ? 'from a finished turn' : 'from its last turn or any turn above'}.
        </p>
        {lastTurnId !== undefined && (
          <div>
            <ForkButton turnId={lastTurnId} fork={fork} label="Fork from the last turn" className="btn btn-small" />
          </div>
        )}
      </div>
    </div>
  );
}
