import { useId, useState } from 'react';
import { filesChangedText, lineTotals } from '../data/changedFiles.ts';
import { type FilesRewound, turnChangesError } from '../data/changesStore.ts';
import { LineCounts } from './ChangedFileLabel.tsx';
import { ChangedFileList } from './ChangedFileList.tsx';
import { useAction, useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { useReview } from './reviewContext.ts';

/**
 * A user turn's changed files, from its checkpoints: "N files changed", opening to each file's diff. While
 * the turn runs it is its diff so far (against the working directory). A checkpoint that failed is a quiet
 * line, never a failed turn; a rewind to before this turn says so here, with its undo.
 */
export function TurnChanges({ turnId, running }: { turnId: string; running: boolean }) {
  const review = useReview();
  const screen = useValue(review.changes.screen);
  const [open, setOpen] = useState(false);
  const listId = useId();
  const entry = screen.changes?.turns.find((turn) => turn.turnId === turnId);
  const error = turnChangesError(screen, turnId);
  const rewound = screen.lastRewound?.turnId === turnId ? screen.lastRewound : null;
  const files = entry?.files ?? [];
  const hasDiff = entry?.from != null && entry.to != null && files.length > 0;
  if (error === null && !hasDiff && rewound === null) return null;
  const totals = lineTotals(files);
  return (
    <div className="turn-changes">
      {error !== null && <p className="turn-changes-note">No diff for this turn: {error}</p>}
      {hasDiff && (
        <>
          <button
            type="button"
            className="turn-changes-toggle"
            aria-expanded={open}
            aria-controls={listId}
            onClick={() => setOpen((value) => !value)}
          >
            <Icon name="chevron" className="chevron" />
            <Icon name="file" />
            <span>
              {filesChangedText(files.length)}
              {running ? ' so far' : ''}
            </span>
            {(totals.additions > 0 || totals.deletions > 0) && <LineCounts {...totals} />}
          </button>
          <div id={listId} hidden={!open}>
            {open && (
              <ChangedFileList
                files={files}
                from={entry.from!}
                to={entry.to!}
                revertable={!running}
                label={running ? 'Files this turn has changed so far' : 'Files this turn changed'}
              />
            )}
          </div>
        </>
      )}
      {rewound !== null && <RewoundNote rewound={rewound} />}
    </div>
  );
}

function RewoundNote({ rewound }: { rewound: FilesRewound }) {
  const review = useReview();
  const { busy, error, run } = useAction();
  if (rewound.kind === 'undo')
    return (
      <p className="turn-changes-note" role="status">
        Rewind undone: the files are as they were before it.
      </p>
    );
  return (
    <div className="rewound-note" role="status">
      <Icon name="rewind" />
      <span className="grow">
        Files rewound to before this turn ({filesChangedText(rewound.files.length).toLowerCase()}).
      </span>
      <button
        type="button"
        className="btn btn-small"
        disabled={busy || review.blockedReason !== null}
        title={review.blockedReason ?? 'Put the files back as they were before the rewind'}
        onClick={() => run(() => review.changes.undo(rewound))}
      >
        <Icon name="undo" /> {busy ? 'Undoing…' : 'Undo rewind'}
      </button>
      {error !== null && (
        <span className="composer-error" role="alert">
          Could not undo: {error}
        </span>
      )}
    </div>
  );
}
