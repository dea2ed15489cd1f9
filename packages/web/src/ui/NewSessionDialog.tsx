import { HostApiError, type PermissionMode } from '@outrigger/host-api';
import { useEffect, useRef, useState } from 'react';
import { messageOf } from '../data/format.ts';
import { isAboutField } from '../data/hostErrorDetails.ts';
import { useServices } from './appContext.ts';
import { DirectoryField } from './DirectoryField.tsx';
import { useAction, useValue } from './hooks.ts';
import { ModelField } from './ModelPicker.tsx';
import { PermissionModeField } from './PermissionModeOptions.tsx';
import { navigate, sessionHref } from './route.ts';

/** Create a session: where it runs, which model, how it asks; then open it. */
export function NewSessionDialog({ onClose }: { onClose: () => void }) {
  const { host } = useServices();
  const { info } = useValue(host.screen);
  const dialog = useRef<HTMLDialogElement>(null);
  // A refusal about the worktree (not a repository, git missing) is said at its field; anything else below.
  const [worktreeError, setWorktreeError] = useState<string | null>(null);
  // A model Claude Code rejected is said at the model field.
  const [modelError, setModelError] = useState<string | null>(null);
  // A directory the host refused (missing, not a directory, outside the roots) is said at its field.
  const [cwdError, setCwdError] = useState<string | null>(null);
  const { busy, error, run } = useAction((e) => {
    if (isAboutField(e, 'cwd')) {
      setCwdError(messageOf(e));
      return '';
    }
    if (isAboutField(e, 'model')) {
      setModelError(messageOf(e));
      return '';
    }
    if (isAboutField(e, 'worktree') || (e instanceof HostApiError && e.code === 'git_unavailable')) {
      setWorktreeError(messageOf(e));
      return '';
    }
    return messageOf(e);
  });

  useEffect(() => {
    const element = dialog.current;
    if (element !== null && !element.open) element.showModal();
    return () => element?.close();
  }, []);

  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="new-session-title" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          const text = (name: string) => String(data.get(name) ?? '').trim();
          setWorktreeError(null);
          setModelError(null);
          setCwdError(null);
          run(async () => {
            const session = await host.createSession({
              ...(data.get('worktree') === 'on' ? { worktree: true } : {}),
              cwd: text('cwd') || (info?.defaultCwd ?? ''),
              ...(text('model') !== '' && text('model') !== 'default' ? { model: text('model') } : {}),
              permissionMode: text('permissionMode') as PermissionMode,
              ...(text('title') !== '' ? { title: text('title') } : {}),
            });
            onClose();
            navigate(sessionHref(session.id));
          });
        }}
      >
        <h2 id="new-session-title">New session</h2>
        <DirectoryField name="cwd" error={cwdError} onEdit={() => setCwdError(null)} />
        <ModelField name="model" error={modelError} />
        <PermissionModeField name="permissionMode" />
        <label className="field">
          Name (optional)
          <input className="input" name="title" maxLength={200} />
        </label>
        <div className="field">
          <label className="checkbox-field">
            <input
              type="checkbox"
              name="worktree"
              aria-describedby="new-session-worktree-hint"
              aria-invalid={worktreeError !== null}
              aria-errormessage={worktreeError === null ? undefined : 'new-session-worktree-error'}
              onChange={() => setWorktreeError(null)}
            />
            Run in a new git worktree
          </label>
          <span className="small" id="new-session-worktree-hint">
            A branch of its own in a separate folder: sessions on one repository never touch each other’s files.
          </span>
          {worktreeError !== null && (
            <span className="composer-error" id="new-session-worktree-error" role="alert">
              {worktreeError}
            </span>
          )}
        </div>
        {error !== null && error !== '' && (
          <p className="composer-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create session'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
