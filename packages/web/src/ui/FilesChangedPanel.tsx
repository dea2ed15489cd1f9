import type { ChangedFile } from '@outrigger/host-api';
import { useState } from 'react';
import { lineTotals } from '../data/changedFiles.ts';
import { LineCounts } from './ChangedFileLabel.tsx';
import { ChangedFileList } from './ChangedFileList.tsx';
import { FileDiffDialog } from './FileDiffDialog.tsx';
import { useValue } from './hooks.ts';
import { useReview } from './reviewContext.ts';

/**
 * The session's diff since its first checkpoint, whatever made the changes (an Edit, a command, a
 * formatter): each file opens its diff from the session's start to the working directory.
 */
export function FilesChangedPanel() {
  const review = useReview();
  const screen = useValue(review.changes.screen);
  const [opened, setOpened] = useState<ChangedFile | null>(null);
  const session = screen.changes?.session;
  const files = session?.files ?? [];
  const totals = lineTotals(files);
  const from = session?.from ?? null;
  const to = session?.to ?? null;
  return (
    <section className="panel-section" aria-labelledby="files-heading">
      <h2 id="files-heading">
        Files changed {files.length > 0 && <span className="muted">{files.length}</span>}
        {(totals.additions > 0 || totals.deletions > 0) && <LineCounts {...totals} />}
      </h2>
      {screen.changes?.error != null ? (
        <p className="muted small">No diffs in this session: {screen.changes.error}</p>
      ) : screen.changes === null && screen.loadError !== null ? (
        <p className="muted small">The changes could not be loaded: {screen.loadError}</p>
      ) : files.length === 0 || from === null || to === null ? (
        <p className="muted small">No file changed yet.</p>
      ) : (
        <ChangedFileList
          files={files}
          from={from}
          to={to}
          revertable
          onOpen={setOpened}
          label="Files changed in this session"
        />
      )}
      {opened !== null && from !== null && to !== null && (
        <FileDiffDialog file={opened} from={from} to={to} onClose={() => setOpened(null)} />
      )}
    </section>
  );
}
