import type { DeleteSessionResponse, SessionSummary } from '@outrigger/host-api';
import { useRef, useState } from 'react';
import { useServices } from './appContext.ts';
import { CopyButton } from './CopyButton.tsx';
import { useAction } from './hooks.ts';
import { ConfirmActions, ModalDialog } from './ModalDialog.tsx';

/*
 * The session actions that cannot be taken back ask first. Close is confirmed rather than made undoable:
 * closing ends the session's Claude Code and the host refuses its turns from then on, and what the person
 * who closes a session usually wants, getting it out of the list, is what Archive does without losing
 * anything, so the dialog offers that instead.
 */

/** Close: the history stays (read and fork), no more prompts or tasks; or archive it instead. */
export function CloseSessionDialog({ session, onClose }: { session: SessionSummary; onClose: () => void }) {
  const { host } = useServices();
  const dialog = useRef<HTMLDialogElement>(null);
  const { busy, error, run } = useAction();
  const act = (work: () => Promise<unknown>) =>
    run(async () => {
      await work();
      dialog.current?.close();
    });
  return (
    <ModalDialog title={`Close “${session.title}”?`} onClose={onClose} dialogRef={dialog}>
      <p className="small">
        A closed session takes no more prompts or tasks. Its conversation stays readable, and you can fork it from any
        turn to go on. Closing cannot be undone.
      </p>
      <p className="small muted">To only take it out of the list, archive it: you can restore it any time.</p>
      <ConfirmActions
        dialogRef={dialog}
        error={error}
        busy={busy}
        label="Close session"
        busyLabel="Working…"
        onConfirm={() => act(() => host.close(session.id))}
      >
        <button type="button" className="btn" disabled={busy} onClick={() => act(() => host.archive(session.id, true))}>
          Archive instead
        </button>
      </ConfirmActions>
    </ModalDialog>
  );
}

/**
 * Delete: what goes (everything Outrigger keeps of it), what stays (Claude Code's own transcript, which is
 * not Outrigger's to delete), and once deleted, the command that removes that transcript too.
 */
export function DeleteSessionDialog({
  session,
  onClose,
  onDeleted,
}: {
  session: SessionSummary;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const { host } = useServices();
  const dialog = useRef<HTMLDialogElement>(null);
  const { busy, error, run } = useAction();
  const [deleted, setDeleted] = useState<DeleteSessionResponse | null>(null);
  if (deleted !== null) {
    const command = deleted.claudeTranscriptIds
      .map((id) => `find ~/.claude/projects -name '${id}.jsonl' -delete`)
      .join('\n');
    return (
      <ModalDialog title={`Deleted “${session.title}”`} onClose={onClose} dialogRef={dialog}>
        <p className="small" role="status">
          Outrigger no longer has this session
          {deleted.checkpointsRemoved ? ', and its file checkpoints are gone' : ''}. Claude Code’s own transcript of it
          is still on this computer. To delete that too, run:
        </p>
        <div className="command-line">
          <code className="code-inline">{command}</code>
          <CopyButton text={command} label="Copy the command" />
        </div>
        <div className="dialog-actions">
          <button type="button" className="btn btn-primary" onClick={() => dialog.current?.close()}>
            Done
          </button>
        </div>
      </ModalDialog>
    );
  }
  return (
    <ModalDialog title={`Delete “${session.title}” for good?`} onClose={onClose} dialogRef={dialog}>
      <p className="small">
        Outrigger removes its conversation, tasks, answers and file checkpoints. This cannot be undone; the files Claude
        changed in <code className="code-inline">{session.cwd}</code> stay as they are.
      </p>
      <p className="small">
        Claude Code keeps its own transcript of the conversation under{' '}
        <code className="code-inline">~/.claude/projects</code>. Outrigger does not delete it; once this session is
        deleted you get the command that does.
      </p>
      <ConfirmActions
        dialogRef={dialog}
        error={error}
        failedPrefix="Could not delete: "
        busy={busy}
        label="Delete session"
        busyLabel="Deleting…"
        onConfirm={() =>
          run(async () => {
            setDeleted(await host.deleteSession(session.id));
            onDeleted();
          })
        }
      />
    </ModalDialog>
  );
}
