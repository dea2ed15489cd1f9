import { useEffect, useId, useRef, useState } from 'react';

/** The save chord as this keyboard names it. */
const saveKeys =
  typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘+Enter' : 'Ctrl+Enter';

/**
 * The inline editor of a sent prompt: Save runs the edited text in a fork from just before it, Cancel
 * (or Esc) puts the message back. Ctrl/Cmd+Enter saves; Enter adds a line, as editing a long prompt needs.
 */
export function PromptEditor({
  initial,
  imageCount,
  busy,
  error,
  onSave,
  onCancel,
}: {
  initial: string;
  imageCount: number;
  busy: boolean;
  error: string | null;
  onSave: (text: string) => void;
  onCancel: () => void;
}) {
  const [text, setText] = useState(initial);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();
  const empty = text.trim() === '' && imageCount === 0;

  useEffect(() => {
    const element = textarea.current;
    if (element === null) return;
    element.focus({ preventScroll: true });
    element.setSelectionRange(element.value.length, element.value.length);
  }, []);

  // Grow with the text (up to the CSS max), as the composer does.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-measure when the text changes
  useEffect(() => {
    const element = textarea.current;
    if (element === null) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(element.scrollHeight + 2, 360)}px`;
  }, [text]);

  const save = () => {
    if (!empty && !busy) onSave(text.trim());
  };
  return (
    <form
      className="prompt-editor"
      aria-label="Edit prompt"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <textarea
        ref={textarea}
        className="textarea"
        aria-label="Edited prompt"
        aria-describedby={hintId}
        value={text}
        disabled={busy}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            // Esc in the composer stops the running turn: here it only closes the editor.
            event.preventDefault();
            event.stopPropagation();
            onCancel();
          } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            save();
          }
        }}
      />
      {error !== null && (
        <p className="composer-error" role="alert">
          Could not run the edited prompt: {error}
        </p>
      )}
      <div className="prompt-editor-bar">
        <span className="hint" id={hintId}>
          Runs in a new session forked from just before this prompt
          {imageCount > 0 ? `, with its ${imageCount === 1 ? 'image' : `${imageCount} images`}` : ''}; this session
          stays as it is. {saveKeys} saves, Esc cancels.
        </span>
        <button type="button" className="btn btn-small" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary btn-small" disabled={empty || busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}
