import type { ContentBlock, MessageView } from '@outrigger/host-api';
import { useRef, useState } from 'react';
import { useAction } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { PromptEditor } from './PromptEditor.tsx';

/** Re-running a sent prompt in a fork from just before it (see `data/promptRerun.ts`). */
export interface RerunActions {
  /** The message can be edited (a prompt of its own turn, with the turn before it known here). */
  editable(row: MessageView): boolean;
  /** The turn Retry re-runs: the last one, once it ended; null while none can be. */
  retryTurnId: string | null;
  /** Runs `text` (with the message's images) in a fork from just before it, and opens the fork. */
  edit(row: MessageView, text: string): Promise<void>;
  /** Runs the message again, as sent, in a fork from just before it, and opens the fork. */
  retry(row: MessageView): Promise<void>;
}

type ImageBlock = Extract<ContentBlock, { type: 'image' }>;

export function textOf(row: MessageView): string {
  return row.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** A prompt the person sent, with Edit (an inline editor) and, on the last turn, Retry. */
export function UserMessage({ row, rerun }: { row: MessageView; rerun: RerunActions }) {
  const images = row.content.filter((block): block is ImageBlock => block.type === 'image');
  const [editing, setEditing] = useState(false);
  const saving = useAction();
  const retrying = useAction();
  const editButton = useRef<HTMLButtonElement>(null);
  const editable = rerun.editable(row);
  const retryable = rerun.retryTurnId !== null && rerun.retryTurnId === row.turnId && !row.steer;

  if (editing)
    return (
      <div className="msg-user">
        <PromptEditor
          initial={textOf(row)}
          imageCount={images.length}
          busy={saving.busy}
          error={saving.error}
          onSave={(text) => saving.run(() => rerun.edit(row, text))}
          onCancel={() => {
            setEditing(false);
            // The editor goes away: focus goes back to what opened it, not to the page.
            requestAnimationFrame(() => editButton.current?.focus());
          }}
        />
      </div>
    );
  return (
    <div className="msg-user">
      <div className="bubble">
        {row.steer && (
          <span className="tag" style={{ marginRight: 6 }}>
            steered
          </span>
        )}
        {textOf(row)}
        {images.length > 0 && (
          <div className="images">
            {images.map((image) => (
              <img
                key={image.attachmentId}
                src={`/api/attachments/${encodeURIComponent(image.attachmentId)}`}
                alt="Attached"
                loading="lazy"
              />
            ))}
          </div>
        )}
      </div>
      {retrying.error !== null && (
        <p className="composer-error" role="alert">
          Could not retry: {retrying.error}
        </p>
      )}
      {(editable || retryable) && (
        <div className="msg-actions">
          {editable && (
            <button
              type="button"
              ref={editButton}
              className="btn btn-ghost btn-small"
              onClick={() => setEditing(true)}
              title="Edit this prompt and run it in a new session forked from just before it"
            >
              <Icon name="edit" /> Edit<span className="sr-only"> prompt</span>
            </button>
          )}
          {retryable && (
            <button
              type="button"
              className="btn btn-ghost btn-small"
              disabled={retrying.busy}
              onClick={() => retrying.run(() => rerun.retry(row))}
              title="Run this prompt again in a new session forked from just before it; this answer is kept here"
            >
              <Icon name="refresh" /> {retrying.busy ? 'Retrying…' : 'Retry'}
              <span className="sr-only"> the last turn</span>
            </button>
          )}
        </div>
      )}
    </div>
  );
}
