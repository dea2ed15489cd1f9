import type { ChangedFile } from '@outrigger/host-api';
import { useRef } from 'react';
import { displayPath, modeNote } from '../data/changedFiles.ts';
import { LineCounts } from './ChangedFileLabel.tsx';
import { FilePatchView } from './FilePatchView.tsx';
import { ModalDialog } from './ModalDialog.tsx';

/** One file of the session's diff, roomier than the side panel: its hunks, its reverts. */
export function FileDiffDialog({
  file,
  from,
  to,
  onClose,
}: {
  file: ChangedFile;
  from: string;
  to: string;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <ModalDialog title={displayPath(file)} onClose={onClose} dialogRef={dialog} wide>
      <p className="small muted file-diff-summary">
        <span className="change-status" data-status={file.status}>
          {file.status}
        </span>
        {file.binary && <span className="tag">binary</span>}
        {modeNote(file) !== null && <span className="tag">{modeNote(file)}</span>}
        {!file.binary && <LineCounts additions={file.additions} deletions={file.deletions} />}
        <span>since the session started</span>
      </p>
      <FilePatchView file={file} from={from} to={to} revertable />
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
