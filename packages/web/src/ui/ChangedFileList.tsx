import type { ChangedFile } from '@outrigger/host-api';
import { useId, useState } from 'react';
import { ChangedFileLabel } from './ChangedFileLabel.tsx';
import { FilePatchView } from './FilePatchView.tsx';
import { Icon } from './Icon.tsx';

/**
 * The files of one diff (`from` → `to`): each opens its unified diff in place, with its reverts when the
 * diff can be reverted; or, with `onOpen`, hands the file to whoever shows it (a dialog).
 */
export function ChangedFileList({
  files,
  from,
  to,
  revertable,
  onOpen,
  label,
}: {
  files: readonly ChangedFile[];
  from: string;
  to: string;
  revertable: boolean;
  onOpen?: (file: ChangedFile) => void;
  label: string;
}) {
  return (
    <ul className="changed-files" aria-label={label}>
      {files.map((file) => (
        <ChangedFileItem
          key={`${file.oldPath ?? ''}>${file.path}`}
          file={file}
          from={from}
          to={to}
          revertable={revertable}
          onOpen={onOpen}
        />
      ))}
    </ul>
  );
}

function ChangedFileItem({
  file,
  from,
  to,
  revertable,
  onOpen,
}: {
  file: ChangedFile;
  from: string;
  to: string;
  revertable: boolean;
  onOpen?: (file: ChangedFile) => void;
}) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  if (onOpen !== undefined)
    return (
      <li>
        <button type="button" className="changed-file-head" onClick={() => onOpen(file)}>
          <ChangedFileLabel file={file} />
        </button>
      </li>
    );
  return (
    <li>
      <button
        type="button"
        className="changed-file-head"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen((value) => !value)}
      >
        <Icon name="chevron" className="chevron" />
        <ChangedFileLabel file={file} />
      </button>
      <div id={bodyId} hidden={!open} className="changed-file-body">
        {open && <FilePatchView file={file} from={from} to={to} revertable={revertable} />}
      </div>
    </li>
  );
}
