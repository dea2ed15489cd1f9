import { type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';

/**
 * A modal `<dialog>` as the app's dialogs are: open while mounted (the browser moves focus into it, keeps
 * it there, closes it on Esc and gives focus back to what opened it), named by its heading.
 */
export function ModalDialog({
  title,
  onClose,
  wide = false,
  dialogRef,
  children,
}: {
  title: ReactNode;
  onClose: () => void;
  /** Room for a diff: wider than a form. */
  wide?: boolean;
  /** For a child that closes it (`dialogRef.current?.close()`), so `onClose` runs once, from the dialog. */
  dialogRef?: RefObject<HTMLDialogElement | null>;
  children: ReactNode;
}) {
  const own = useRef<HTMLDialogElement>(null);
  const dialog = dialogRef ?? own;
  const headingId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element !== null && !element.open) element.showModal();
    return () => element?.close();
  }, [dialog]);
  return (
    <dialog
      ref={dialog}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby={headingId}
      onClose={onClose}
    >
      <div className="dialog-body">
        <h2 id={headingId}>{title}</h2>
        {children}
      </div>
    </dialog>
  );
}

/**
 * The end of a dialog: why the last try failed, Cancel (closes the dialog), and the ways on (`children`).
 */
export function DialogActions({
  dialogRef,
  error,
  failedPrefix = '',
  children,
}: {
  dialogRef: RefObject<HTMLDialogElement | null>;
  error: string | null;
  /** Said before the error (`Could not delete: `). */
  failedPrefix?: string;
  children?: ReactNode;
}) {
  return (
    <>
      {error !== null && (
        <p className="composer-error" role="alert">
          {failedPrefix}
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={() => dialogRef.current?.close()}>
          Cancel
        </button>
        {children}
      </div>
    </>
  );
}

/**
 * The end of a dialog that asks before an act that cannot be taken back: why the last try failed, Cancel
 * (closes the dialog), any other way out (`children`), and the act itself, marked as dangerous.
 */
export function ConfirmActions({
  dialogRef,
  error,
  failedPrefix = '',
  busy,
  label,
  busyLabel,
  onConfirm,
  children,
}: {
  dialogRef: RefObject<HTMLDialogElement | null>;
  error: string | null;
  /** Said before the error (`Could not delete: `). */
  failedPrefix?: string;
  busy: boolean;
  label: string;
  busyLabel: string;
  onConfirm: () => void;
  children?: ReactNode;
}) {
  return (
    <DialogActions dialogRef={dialogRef} error={error} failedPrefix={failedPrefix}>
      {children}
      <button type="button" className="btn btn-danger" disabled={busy} onClick={onConfirm}>
        {busy ? busyLabel : label}
      </button>
    </DialogActions>
  );
}
