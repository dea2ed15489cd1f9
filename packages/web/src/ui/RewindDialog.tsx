import type { RewindResult } from '@outrigger/host-api';
import { useEffect, useRef, useState } from 'react';
import { filesChangedText } from '../data/changedFiles.ts';
import { turnChangesError } from '../data/changesStore.ts';
import { messageOf } from '../data/format.ts';
import { startConversation as conversationFrom } from '../data/promptRerun.ts';
import { conversationBefore } from '../data/rewindPlan.ts';
import type { SessionViewState } from '../data/sessionState.ts';
import { useServices } from './appContext.ts';
import { ChangedFileLabel } from './ChangedFileLabel.tsx';
import { useAction, useValue } from './hooks.ts';
import { ModalDialog } from './ModalDialog.tsx';
import { useReview } from './reviewContext.ts';
import { navigate, sessionHref } from './route.ts';

type Choice = 'files' | 'conversation' | 'both';

const CHOICES: readonly { value: Choice; label: string; description: string }[] = [
  { value: 'files', label: 'Files', description: 'The files as they were before this turn. The conversation stays.' },
  {
    value: 'conversation',
    label: 'Conversation',
    description: 'A new session from just before this turn. This session and the files stay as they are.',
  },
  { value: 'both', label: 'Both', description: 'The files back, and a new session from just before this turn.' },
];

const excerpt = (text: string | null | undefined, length = 60) => {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
};

/**
 * Back to before a user turn: its files (a rewind to the turn's start checkpoint), its conversation (a new
 * session from just before it), or both. What the files would become is shown first (a dry run), and only
 * the button applies it.
 */
export function RewindDialog({
  turnId,
  view,
  onClose,
}: {
  turnId: string;
  view: SessionViewState;
  onClose: () => void;
}) {
  const review = useReview();
  const { host } = useServices();
  const changes = useValue(review.changes.screen);
  const dialog = useRef<HTMLDialogElement>(null);
  const entry = changes.changes?.turns.find((turn) => turn.turnId === turnId);
  const filesPossible = entry?.from != null;
  const [choice, setChoice] = useState<Choice>(filesPossible ? 'files' : 'conversation');
  const [preview, setPreview] = useState<RewindResult | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const session = view.session;
  const start = conversationBefore(view, turnId);
  const withFiles = choice !== 'conversation';
  const withConversation = choice !== 'files';
  const blocked = review.blockedReason;

  useEffect(() => {
    if (!filesPossible) return;
    let current = true;
    review.changes.previewRewind(turnId).then(
      (result) => current && setPreview(result),
      (e: unknown) => current && setPreviewError(messageOf(e)),
    );
    return () => {
      current = false;
    };
  }, [review.changes, turnId, filesPossible]);

  const startConversation = async (): Promise<string> => {
    if (session === null || start === null) throw new Error('the conversation before this turn is not known here');
    return conversationFrom(host, session, start, `${session.title} (rewound)`);
  };

  const apply = () =>
    run(async () => {
      if (withFiles) await review.changes.rewind(turnId);
      if (withConversation) {
        let id: string;
        try {
          id = await startConversation();
        } catch (e) {
          if (!withFiles) throw e;
          throw new Error(`the files were rewound, but the new session could not start: ${messageOf(e)}`);
        }
        dialog.current?.close();
        navigate(sessionHref(id));
        return;
      }
      dialog.current?.close();
    });

  const previousPrompt = start?.kind === 'fork' ? view.turns[start.turnId]?.prompt : null;
  const cannotApply =
    busy ||
    blocked !== null ||
    (withFiles && (!filesPossible || preview === null)) ||
    (withConversation && start === null);
  return (
    <ModalDialog
      title={`Rewind to before “${excerpt(view.turns[turnId]?.prompt) || 'this turn'}”`}
      onClose={onClose}
      dialogRef={dialog}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
      >
        <fieldset className="choices">
          <legend>What to take back</legend>
          {CHOICES.map((option) => (
            <label className="option" key={option.value}>
              <input
                type="radio"
                name="rewind"
                value={option.value}
                checked={choice === option.value}
                disabled={option.value !== 'conversation' && !filesPossible}
                onChange={() => setChoice(option.value)}
              />
              <span>
                {option.label}
                <span className="option-desc">{option.description}</span>
              </span>
            </label>
          ))}
        </fieldset>

        <section className="rewind-preview" aria-label="What will change" aria-live="polite">
          {!filesPossible ? (
            <p className="small muted">
              This turn has no checkpoint, so its files cannot be rewound
              {turnChangesError(changes, turnId) === null ? '.' : `: ${turnChangesError(changes, turnId)}`}
            </p>
          ) : (
            withFiles &&
            (previewError !== null ? (
              <p className="composer-error">Could not work out what would change: {previewError}</p>
            ) : preview === null ? (
              <p className="small muted">Working out what would change…</p>
            ) : preview.files.length === 0 ? (
              <p className="small">The files are already as they were before this turn: nothing will change.</p>
            ) : (
              <>
                <p className="small">{filesChangedText(preview.files.length).replace('changed', 'will change')}:</p>
                <ul className="changed-files static" aria-label="Files the rewind will change">
                  {preview.files.map((file) => (
                    <li key={`${file.oldPath ?? ''}>${file.path}`}>
                      <ChangedFileLabel file={file} asRewind />
                    </li>
                  ))}
                </ul>
                <p className="small muted">You can undo it afterwards.</p>
              </>
            ))
          )}
          {withConversation && (
            <p className="small">
              {start === null
                ? 'The turn before this one is in earlier messages: load them (scroll up) to start from before it.'
                : start.kind === 'fork'
                  ? `A new session continues from after “${excerpt(previousPrompt) || 'the turn before'}”.`
                  : `A new session starts in ${session?.cwd ?? 'the same folder'}: this was the first turn.`}
            </p>
          )}
        </section>
        {blocked !== null && (
          <p className="small" role="status">
            {blocked}
          </p>
        )}
        {error !== null && (
          <p className="composer-error" role="alert">
            Could not rewind: {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={cannotApply}>
            {busy
              ? 'Rewinding…'
              : choice === 'files'
                ? 'Rewind files'
                : choice === 'conversation'
                  ? 'Start from before'
                  : 'Rewind both'}
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
