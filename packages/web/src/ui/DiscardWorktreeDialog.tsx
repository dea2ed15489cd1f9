import type { WorktreeStatus } from '@outrigger/host-api';
import { useRef } from 'react';
import { filesChangedText } from '../data/changedFiles.ts';
import { useAction } from './hooks.ts';
import { ConfirmActions, ModalDialog } from './ModalDialog.tsx';

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
      <ConfirmActions
        dialogRef={dialog}
        error={error}
        failedPrefix="Could not discard: "
        busy={busy}
        label="Discard worktree"
        busyLabel="Discarding…"
        onConfirm={() =>
          run(async () => {
            await discard();
            dialog.current?.close();
          })
        }
      />
    </ModalDialog>
  );
}
