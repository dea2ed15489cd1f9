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
