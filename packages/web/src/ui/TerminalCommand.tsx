import { useRef, useState } from 'react';
import { CopyButton } from './CopyButton.tsx';
import { Icon } from './Icon.tsx';
import { ModalDialog } from './ModalDialog.tsx';

/**
 * The session header's "Open in terminal": the command that continues this session with Claude Code itself,
 * with a copy button, and the plain warning that Claude Code has no lock.
 */
export function TerminalButton({ command }: { command: string }) {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button
        type="button"
        className="icon-btn"
        aria-label="Open in terminal"
        title="Open in terminal"
        onClick={() => setOpen(true)}
      >
        <Icon name="terminal" />
      </button>
      {open && (
        <ModalDialog title="Open in terminal" onClose={() => setOpen(false)} dialogRef={dialog}>
          <p>Run this in a terminal to go on with this session in Claude Code itself:</p>
          <div className="terminal-command">
            <code>{command}</code>
            <CopyButton text={command} label="Copy the command" />
          </div>
          <p className="continue-warning" role="note">
            Claude Code has no lock: using the terminal and Outrigger at the same time interleaves two writers in one
            transcript. Use one at a time. What the terminal adds shows here, marked, before Outrigger’s next turn.
          </p>
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={() => dialog.current?.close()}>
              Close
            </button>
          </div>
        </ModalDialog>
      )}
    </>
  );
}
