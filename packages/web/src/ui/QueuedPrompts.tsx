import type { QueuedPrompt } from '@outrigger/host-api';
import { useId, useState } from 'react';
import { messageOf } from '../data/format.ts';
import { Icon } from './Icon.tsx';

/** What the person can do with a queued prompt; each call goes to the host, the `queue` event shows the result. */
export interface QueueActions {
  remove: (turnId: string) => Promise<unknown>;
  edit: (turnId: string, prompt: string) => Promise<unknown>;
  runNow: (turnId: string) => Promise<unknown>;
  resume: () => Promise<unknown>;
}

const count = (n: number) => (n === 1 ? '1 prompt' : `${n} prompts`);

/**
 * The prompts waiting in the session's queue, in the order they will run. While a turn runs they wait behind it;
 * after the person's Stop they are paused (*Stop must stop*): none starts until they run one now, resume the
 * queue, or send something new (which runs first). Each prompt can be run now, edited in place, or removed.
 */
export function QueuedPrompts({
  queued,
  busy,
  actions,
}: {
  queued: readonly QueuedPrompt[];
  /** A turn runs: Run now waits for it (the host refuses it meanwhile). */
  busy: boolean;
  actions: QueueActions;
}) {
  const [editing, setEditing] = useState<{ turnId: string; text: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [working, setWorking] = useState(false);
  const headingId = useId();
  if (queued.length === 0) return null;
  const paused = queued.filter((prompt) => prompt.paused).length;

  const act = (work: () => Promise<unknown>, after?: () => void) => {
    setWorking(true);
    setProblem(null);
    work().then(
      () => {
        setWorking(false);
        after?.();
      },
      (error: unknown) => {
        setWorking(false);
        setProblem(messageOf(error));
      },
    );
  };
  const save = () => {
    if (editing === null) return;
    const { turnId, text } = editing;
    act(
      () => actions.edit(turnId, text),
      () => setEditing(null),
    );
  };

  return (
    <section className="queued" data-paused={paused > 0} aria-labelledby={headingId}>
      <div className="queued-head">
        <p id={headingId} className="queued-title">
          {paused > 0 ? (
            <>
              <span className="status status-paused">
                <span className="dot" aria-hidden="true" />
                Paused
              </span>
              <span className="muted small">
                {paused === queued.length
                  ? `Stopped: ${count(paused)} wait${paused === 1 ? 's' : ''} for you`
                  : `${paused} of ${count(queued.length)} wait for you`}
              </span>
            </>
          ) : (
            <span className="muted small">{count(queued.length)} queued · next after this turn</span>
          )}
        </p>
        {paused > 0 && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => act(actions.resume)}
            disabled={working}
            title={busy ? 'They run after the current turn, in order' : 'Run them in order, starting now'}
          >
            <Icon name="send" /> Resume queue
          </button>
        )}
      </div>
      <ol className="queued-list" aria-label="Queued prompts">
        {queued.map((prompt, index) => {
          const label = prompt.prompt || `${prompt.imageCount} image(s)`;
          const isEditing = editing?.turnId === prompt.turnId;
          return (
            <li key={prompt.turnId} className="queued-item" data-paused={prompt.paused}>
              <span className="queued-index muted small" aria-hidden="true">
                {index + 1}
              </span>
              {isEditing ? (
                <div className="queued-edit">
                  <label htmlFor={`queued-edit-${prompt.turnId}`} className="sr-only">
                    Edit queued prompt
                  </label>
                  <textarea
                    id={`queued-edit-${prompt.turnId}`}
                    rows={2}
                    value={editing.text}
                    // biome-ignore lint/a11y/noAutofocus: the person just asked to edit this prompt
                    autoFocus
                    onChange={(event) => setEditing({ turnId: prompt.turnId, text: event.currentTarget.value })}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                        event.preventDefault();
                        save();
                      } else if (event.key === 'Escape') {
                        event.preventDefault();
                        event.stopPropagation();
                        setEditing(null);
                      }
                    }}
                  />
                  <div className="queued-actions">
                    <button type="button" className="btn btn-small btn-primary" onClick={save} disabled={working}>
                      Save
                    </button>
                    <button type="button" className="btn btn-small" onClick={() => setEditing(null)}>
                      Cancel
                    </button>
                  </div>
                </div>
              ) : (
                <>
                  <span className="queued-text" title={prompt.prompt}>
                    {label}
                    {prompt.prompt !== '' && prompt.imageCount > 0 && (
                      <span className="muted small"> · {prompt.imageCount} image(s)</span>
                    )}
                  </span>
                  {prompt.paused && paused < queued.length && <span className="tag">paused</span>}
                  <span className="queued-actions">
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Run now: ${label}`}
                      title={busy ? 'A turn is running: stop it first, or resume the queue' : 'Run this prompt now'}
                      disabled={busy || working}
                      onClick={() => act(() => actions.runNow(prompt.turnId))}
                    >
                      <Icon name="send" /> Run now
                    </button>
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Edit queued prompt: ${label}`}
                      onClick={() => setEditing({ turnId: prompt.turnId, text: prompt.prompt })}
                    >
                      <Icon name="edit" /> Edit
                    </button>
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Remove queued prompt: ${label}`}
                      disabled={working}
                      onClick={() => act(() => actions.remove(prompt.turnId))}
                    >
                      <Icon name="trash" /> Remove
                    </button>
                  </span>
                </>
              )}
            </li>
          );
        })}
      </ol>
      {problem !== null && (
        <div className="composer-error" role="alert">
          {problem}
        </div>
      )}
    </section>
  );
}
