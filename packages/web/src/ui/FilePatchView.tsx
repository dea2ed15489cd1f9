import { type ChangedFile, type FilePatch, HostApiError, WORKING_TREE } from '@outrigger/host-api';
import { lazy, Suspense, useEffect, useState } from 'react';
import { modeNote } from '../data/changedFiles.ts';
import { unifiedDiffOfHunks } from '../data/fileDiff.ts';
import { messageOf } from '../data/format.ts';
import { useAction, useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { useReview } from './reviewContext.ts';

const DiffView = lazy(() => import('./DiffView.tsx').then((module) => ({ default: module.DiffView })));

/** A revert made from this view: which hunk (null: the whole file), and the checkpoint that undoes it. */
interface Reverted {
  hunk: number | null;
  safetyId: string;
}

/**
 * One file's diff between two checkpoints (or a checkpoint and the working directory), hunk by hunk, with
 * "Revert file" and a "Revert hunk" per hunk. A diff against the working directory reloads as the files
 * change, so a reverted hunk leaves it; between two checkpoints the diff is history and stays, its reverted
 * hunks marked.
 */
export function FilePatchView({
  file,
  from,
  to,
  revertable,
}: {
  file: ChangedFile;
  from: string;
  to: string;
  /** Offer the reverts (not for a turn still running: its agent is writing these files). */
  revertable: boolean;
}) {
  const review = useReview();
  const { version, lastRewound } = useValue(review.changes.screen);
  const [patch, setPatch] = useState<FilePatch | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [reverts, setReverts] = useState<Reverted[]>([]);
  const { busy, error, run } = useAction();
  const live = to === WORKING_TREE;
  // Between two checkpoints the diff never changes; against the working directory it follows every reload.
  const reloadKey = live ? version : 0;

  // biome-ignore lint/correctness/useExhaustiveDependencies: reloadKey reloads a live diff
  useEffect(() => {
    let current = true;
    review.changes.patch(from, to, file.path).then(
      (loaded) => {
        if (!current) return;
        setPatch(loaded);
        setLoadError(null);
      },
      (e: unknown) => {
        if (!current) return;
        setPatch(null);
        setLoadError(
          e instanceof HostApiError && e.code === 'not_found' && live
            ? 'This file is now as it was at the start: nothing left to show.'
            : messageOf(e),
        );
      },
    );
    return () => {
      current = false;
    };
  }, [review.changes, from, to, file.path, reloadKey, live]);

  // A revert the last undo took back is no longer shown as reverted.
  const undoneId = lastRewound?.kind === 'undo' ? lastRewound.target : null;
  const standing = reverts.filter((revert) => revert.safetyId !== undoneId);
  const wholeFile = standing.some((revert) => revert.hunk === null);
  const undoneHunks = new Set(standing.flatMap((revert) => (revert.hunk === null ? [] : [revert.hunk])));
  const last = reverts.at(-1);
  const undoable =
    last !== undefined && lastRewound?.kind === 'revert' && lastRewound.safetyCheckpoint.id === last.safetyId
      ? lastRewound
      : null;
  const blocked = review.blockedReason;

  const revert = (hunk: number | null) =>
    run(async () => {
      const result = await review.changes.revert({ from, to, path: file.path, ...(hunk === null ? {} : { hunk }) });
      const safetyId = result.safetyCheckpoint?.id;
      if (safetyId !== undefined) setReverts((current) => [...current, { hunk, safetyId }]);
    });

  const mode = modeNote(file);
  return (
    <div className="file-patch">
      {revertable && (
        <div className="file-patch-actions">
          {wholeFile && !live ? (
            <span className="tag">Reverted to before</span>
          ) : (
            <button
              type="button"
              className="btn btn-small"
              disabled={busy || blocked !== null}
              title={blocked ?? 'Put this file back as it was before'}
              onClick={() => revert(null)}
            >
              <Icon name="undo" /> Revert file
            </button>
          )}
          {undoable !== null && (
            <span className="undo-line" role="status">
              {last?.hunk === null ? 'File reverted.' : `Hunk ${(last?.hunk ?? 0) + 1} reverted.`}{' '}
              <button
                type="button"
                className="btn btn-small btn-ghost"
                disabled={busy || blocked !== null}
                onClick={() => run(() => review.changes.undo(undoable))}
              >
                Undo
              </button>
            </span>
          )}
          {blocked !== null && <span className="muted small">{blocked}</span>}
        </div>
      )}
      {error !== null && (
        <p className="composer-error" role="alert">
          Could not revert: {error}
        </p>
      )}
      {loadError !== null ? (
        <p className="muted small">{loadError}</p>
      ) : patch === null ? (
        <p className="muted small">Loading the diff…</p>
      ) : patch.hunks.length === 0 ? (
        <p className="muted small">
          {file.binary
            ? 'A binary file: its content is not shown.'
            : mode !== null
              ? `Only its mode changed: ${mode}.`
              : file.status === 'renamed'
                ? 'Moved; its content did not change.'
                : 'No lines changed.'}
        </p>
      ) : (
        <Suspense fallback={<p className="muted small">Loading the diff…</p>}>
          <DiffView
            diff={unifiedDiffOfHunks(patch.file, patch.hunks)}
            undoneHunks={wholeFile && !live ? new Set(patch.hunks.map((hunk) => hunk.index)) : undoneHunks}
            hunkHeader={(index) => {
              const hunk = patch.hunks[index];
              if (hunk === undefined) return null;
              const done = (wholeFile && !live) || undoneHunks.has(index);
              return (
                <span className="hunk-bar">
                  <span className="hunk-range">{hunk.header}</span>
                  {revertable &&
                    (done ? (
                      <span className="tag">Reverted</span>
                    ) : (
                      <button
                        type="button"
                        className="btn btn-small"
                        disabled={busy || blocked !== null}
                        title={blocked ?? undefined}
                        aria-label={`Revert hunk ${index + 1} (${hunk.header}) of ${file.path}`}
                        onClick={() => revert(index)}
                      >
                        Revert hunk
                      </button>
                    ))}
                </span>
              );
            }}
          />
          {patch.truncated && (
            <p className="muted small">This diff is long: it is cut after {patch.hunks.length} hunks.</p>
          )}
        </Suspense>
      )}
    </div>
  );
}
