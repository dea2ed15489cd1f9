import type { WorktreeStatus } from '@outrigger/host-api';
import { useRef } from 'react';
import { filesChangedText } from '../data/changedFiles.ts';
import { useAction } from './hooks.ts';
import { ModalDialog } from './ModalDialog.tsx';

/** The one worktree action that cannot be taken back asks first, and says what it deletes. */
export function DiscardWorktreeDialog({
  status,
  discard,
  onClose,
}: {
  status: WorktreeStatus;
  discard: () => Promise<unknown>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { busy, error, run } = useAction();
  const { worktree } = status;
  const unmerged = status.files.length;
  return (
    <ModalDialog title="Discard this worktree?" onClose={onClose} dialogRef={dialog}>
      <p className="small">
        The worktree <code className="code-inline">{worktree.path}</code> and the branch{' '}
        <code className="code-inline">{worktree.branch}</code> are deleted
        {unmerged > 0
          ? `, with what is not merged into ${worktree.baseBranch ?? 'the base'} (${filesChangedText(unmerged).toLowerCase()})`
          : ''}
        . The session closes. This cannot be undone.
      </p>
      {error !== null && (
        <p className="composer-error" role="alert">
          Could not discard: {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy}
          onClick={() =>
            run(async () => {
              await discard();
              dialog.current?.close();
            })
          }
        >
          {busy ? 'Discarding…' : 'Discard worktree'}
        </button>
      </div>
    </ModalDialog>
  );
}
