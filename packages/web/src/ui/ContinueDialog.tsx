import type { HistoryContinueMode, HistorySession } from '@outrigger/host-api';
import { useRef, useState } from 'react';
import { formatAgo } from '../data/format.ts';
import { type ContinueOffer, continueOffer, offerAfterRefusal } from '../data/historyContinue.ts';
import { useServices } from './appContext.ts';
import { useAction } from './hooks.ts';
import { DialogActions, ModalDialog } from './ModalDialog.tsx';
import { navigate, sessionHref } from './route.ts';

/**
 * "Continue in Outrigger": resume the Claude Code session (the default) or fork it; one that may be open in a
 * terminal says so and offers Fork first (Continue anyway forces the resume); one already continued links to
 * that session. On success the new session opens.
 */
export function ContinueDialog({ session, onClose }: { session: HistorySession; onClose: () => void }) {
  const { client } = useServices();
  const dialog = useRef<HTMLDialogElement>(null);
  const [offer, setOffer] = useState<ContinueOffer>(() => continueOffer(session));
  const [mode, setMode] = useState<HistoryContinueMode>('resume');
  const action = useAction();

  const go = (body: { mode: HistoryContinueMode; force?: boolean }) =>
    action.run(async () => {
      try {
        const created = await client.call('continueHistory', {
          params: { claudeSessionId: session.claudeSessionId },
          body,
        });
        dialog.current?.close();
        navigate(sessionHref(created.id));
      } catch (error) {
        const next = offerAfterRefusal(error);
        if (next === null) throw error;
        setOffer(next);
      }
    });

  return (
    <ModalDialog title="Continue in Outrigger" onClose={onClose} dialogRef={dialog}>
      {offer.kind === 'continued' ? (
        <>
          <p>
            An Outrigger session already continues this Claude Code session. Go on there: two sessions resuming one
            transcript would both write to it.
          </p>
          <DialogActions dialogRef={dialog} error={null}>
            <a className="btn btn-primary" href={sessionHref(offer.sessionId)} onClick={() => dialog.current?.close()}>
              Open in Outrigger
            </a>
          </DialogActions>
        </>
      ) : offer.kind === 'in_use' ? (
        <>
          <p className="continue-warning" role="note">
            <strong>This session may be open in a terminal.</strong> Claude Code wrote to it{' '}
            {formatAgo(session.lastActivityAt, Date.now())}. Claude Code has no lock: if it goes on there and here at
            the same time, two writers interleave their messages in one transcript.
          </p>
          <p>Fork it to go on here with a copy, and leave the original to the terminal.</p>
          <DialogActions dialogRef={dialog} error={action.error} failedPrefix="Could not continue: ">
            <button
              type="button"
              className="btn"
              disabled={action.busy}
              onClick={() => go({ mode: 'resume', force: true })}
            >
              Continue anyway
            </button>
            <button
              type="button"
              className="btn btn-primary"
              disabled={action.busy}
              onClick={() => go({ mode: 'fork' })}
            >
              {action.busy ? 'Starting…' : 'Fork'}
            </button>
          </DialogActions>
        </>
      ) : offer.kind === 'gone' ? (
        <>
          <p>{offer.reason}</p>
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={() => dialog.current?.close()}>
              Close
            </button>
          </div>
        </>
      ) : (
        <form
          className="continue-form"
          onSubmit={(event) => {
            event.preventDefault();
            go({ mode });
          }}
        >
          <p>
            A new Outrigger session in <code>{session.cwd}</code> goes on from where this one ended; what was said so
            far shows above its turns.
          </p>
          <fieldset className="continue-modes">
            <legend className="sr-only">How to continue</legend>
            <label>
              <input
                type="radio"
                name="mode"
                value="resume"
                checked={mode === 'resume'}
                onChange={() => setMode('resume')}
              />
              <span>
                <strong>Resume</strong>
                <span className="small muted">New turns go on in this Claude Code session, under its id.</span>
              </span>
            </label>
            <label>
              <input type="radio" name="mode" value="fork" checked={mode === 'fork'} onChange={() => setMode('fork')} />
              <span>
                <strong>Fork</strong>
                <span className="small muted">Go on with a copy under a new id; this session stays as it is.</span>
              </span>
            </label>
          </fieldset>
          <DialogActions dialogRef={dialog} error={action.error} failedPrefix="Could not continue: ">
            <button type="submit" className="btn btn-primary" disabled={action.busy}>
              {action.busy ? 'Starting…' : mode === 'resume' ? 'Resume' : 'Fork'}
            </button>
          </DialogActions>
        </form>
      )}
    </ModalDialog>
  );
}
