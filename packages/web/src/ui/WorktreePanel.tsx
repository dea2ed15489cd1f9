import type { SessionWorktree } from '@outrigger/host-api';
import { useState } from 'react';
import { filesChangedText } from '../data/changedFiles.ts';
import { conflictingPaths } from '../data/hostErrorDetails.ts';
import type { WorktreeStore } from '../data/worktreeStore.ts';
import { ChangedFileLabel } from './ChangedFileLabel.tsx';
import { DiscardWorktreeDialog } from './DiscardWorktreeDialog.tsx';
import { useAction, useValue } from './hooks.ts';
import { Icon } from './Icon.tsx';

const stateWords: Readonly<Record<SessionWorktree['state'], string>> = {
  active: 'active',
  kept: 'kept',
  discarded: 'discarded',
};

/**
 * A worktree session's branch against its base: what it changes, then merge it into the base, keep the
 * branch (the worktree goes, the session closes) or discard both. A merge that conflicts changes nothing
 * and lists the files.
 */
export function WorktreePanel({
  store,
  worktree,
  blockedReason,
}: {
  store: WorktreeStore;
  /** The session's, as its stream has it (a merge elsewhere shows here too). */
  worktree: SessionWorktree;
  blockedReason: string | null;
}) {
  const { status, loadError } = useValue(store.screen);
  const { busy, error, run } = useAction();
  const [conflicts, setConflicts] = useState<string[]>([]);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [discarding, setDiscarding] = useState(false);
  // The session's own diff is in the panel below; against the base it is often the same list, so it folds.
  const [showFiles, setShowFiles] = useState(false);
  const base = worktree.baseBranch ?? 'its base commit';
  const act = (work: () => Promise<string | null>) => {
    setConflicts([]);
    setOutcome(null);
    run(async () => {
      try {
        setOutcome(await work());
      } catch (e) {
        setConflicts(conflictingPaths(e));
        throw e;
      }
    });
  };
  const merge = () =>
    act(async () => {
      const response = await store.act({ action: 'merge' });
      if (response.fastForward === null) return `Nothing to merge: ${base} already has this work.`;
      return `Merged into ${base}${response.fastForward ? ' (a fast-forward)' : ''}.`;
    });
  const disabled = busy || blockedReason !== null;
  return (
    <section className="panel-section" aria-labelledby="worktree-heading">
      <h2 id="worktree-heading">
        Worktree{' '}
        <span className={`tag${worktree.state === 'active' ? ' tag-green' : ''}`}>{stateWords[worktree.state]}</span>
      </h2>
      <p className="worktree-branch small">
        <Icon name="branch" />
        <code className="code-inline" title={worktree.path}>
          {worktree.branch}
        </code>
        <span className="muted">from {worktree.baseBranch ?? worktree.baseCommit.slice(0, 7)}</span>
      </p>
      {worktree.state === 'kept' ? (
        <p className="small">
          Kept: the branch <code className="code-inline">{worktree.branch}</code> stays in {worktree.repoRoot}; its
          worktree was removed and the session is closed.
        </p>
      ) : worktree.state === 'discarded' ? (
        <p className="small">Discarded: the worktree and its branch were removed, and the session is closed.</p>
      ) : (
        <>
          {status === null ? (
            <p className="muted small">{loadError === null ? 'Loading the branch…' : `Not loaded: ${loadError}`}</p>
          ) : (
            <>
              <p className="small muted">
                {status.files.length === 0 ? (
                  `Nothing changed against ${base}`
                ) : (
                  <button
                    type="button"
                    className="link-button"
                    aria-expanded={showFiles}
                    onClick={() => setShowFiles((value) => !value)}
                  >
                    {filesChangedText(status.files.length)} against {base}
                  </button>
                )}
                {` · ${status.commitsAhead} ${status.commitsAhead === 1 ? 'commit' : 'commits'} ahead`}
                {status.uncommitted ? ' · uncommitted changes' : ''}
              </p>
              {showFiles && status.files.length > 0 && (
                <ul className="changed-files static" aria-label={`Files changed against ${base}`}>
                  {status.files.map((file) => (
                    <li key={`${file.oldPath ?? ''}>${file.path}`}>
                      <ChangedFileLabel file={file} />
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
          {worktree.mergedCommit !== null && outcome === null && (
            <p className="small muted">
              Last merged into {base} at {worktree.mergedCommit.slice(0, 7)}.
            </p>
          )}
          <div className="worktree-actions">
            <button
              type="button"
              className="btn btn-primary btn-small"
              disabled={disabled || worktree.baseBranch === null}
              title={
                blockedReason ??
                (worktree.baseBranch === null
                  ? 'The worktree was made from a detached HEAD: no branch to merge into'
                  : undefined)
              }
              onClick={merge}
            >
              <Icon name="merge" /> Merge into {worktree.baseBranch ?? 'base'}
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={disabled}
              title={blockedReason ?? 'The branch stays; the worktree folder is removed and the session closes'}
              onClick={() =>
                act(async () => {
                  await store.act({ action: 'keep' });
                  return null;
                })
              }
            >
              Keep branch, remove worktree
            </button>
            <button
              type="button"
              className="btn btn-danger btn-small"
              disabled={disabled || status === null}
              title={blockedReason ?? undefined}
              onClick={() => setDiscarding(true)}
            >
              <Icon name="trash" /> Discard…
            </button>
          </div>
          {blockedReason !== null && <p className="small muted">{blockedReason}</p>}
        </>
      )}
      {outcome !== null && (
        <p className="small" role="status">
          {outcome}
        </p>
      )}
      {error !== null && (
        <div className="composer-error" role="alert">
          <p>{conflicts.length > 0 ? `The merge would conflict; nothing was changed. Conflicting files:` : error}</p>
          {conflicts.length > 0 && (
            <ul className="conflict-list">
              {conflicts.map((path) => (
                <li key={path}>
                  <code className="code-inline">{path}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {discarding && status !== null && (
        <DiscardWorktreeDialog
          status={status}
          discard={() => store.act({ action: 'discard', confirm: true })}
          onClose={() => setDiscarding(false)}
        />
      )}
    </section>
  );
}
