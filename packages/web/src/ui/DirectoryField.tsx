import type { DirectoryEntry } from '@outrigger/host-api';
import { useEffect, useId, useState } from 'react';
import { useServices } from './appContext.ts';
import { useValue } from './hooks.ts';

/** Typing pauses this long before the host lists a directory. */
const COMPLETE_DEBOUNCE_MS = 120;

/**
 * The working directory of a new session: a combobox that offers the directories past sessions used (on
 * focus, before any typing) and, as a path is typed, the subdirectories it completes to (the host lists
 * them, only inside the directories it may use). `~` is the host's home; the host expands it.
 */
export function DirectoryField({
  name,
  error,
  onEdit,
}: {
  name: string;
  /** The host's refusal of the directory, said at the field. */
  error: string | null;
  onEdit: () => void;
}) {
  const { host } = useServices();
  const { info } = useValue(host.screen);
  const id = useId();
  const [value, setValue] = useState(info?.defaultCwd ?? '');
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState(false);
  const [active, setActive] = useState(-1);
  const [recent, setRecent] = useState<string[]>([]);
  const [entries, setEntries] = useState<DirectoryEntry[]>([]);

  useEffect(() => {
    host.recentDirectories().then(
      (found) => setRecent(found.directories.map((directory) => directory.path)),
      () => setRecent([]),
    );
  }, [host]);

  useEffect(() => {
    if (!typed || !(value.startsWith('/') || value.startsWith('~'))) {
      setEntries([]);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      host.completeDirectory(value, controller.signal).then(
        (completion) => setEntries(completion.entries),
        () => setEntries([]),
      );
    }, COMPLETE_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [host, value, typed]);

  const options = typed ? entries.map((entry) => entry.path) : recent.filter((path) => path !== value);
  const shown = open && options.length > 0;
  const pick = (path: string) => {
    setValue(path);
    setTyped(true);
    setActive(-1);
    onEdit();
  };
  const errorId = `${id}-error`;
  const listId = `${id}-list`;

  return (
    <div className="field directory-field">
      <label htmlFor={`${id}-input`}>Working directory</label>
      <div className="directory-combo">
        <input
          id={`${id}-input`}
          className="input"
          name={name}
          value={value}
          placeholder={info?.defaultCwd ?? '/path/to/project'}
          required
          spellCheck={false}
          autoComplete="off"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={shown}
          aria-controls={listId}
          aria-activedescendant={shown && active >= 0 ? `${id}-option-${active}` : undefined}
          aria-describedby={`${id}-hint`}
          aria-invalid={error !== null}
          aria-errormessage={error === null ? undefined : errorId}
          onFocus={() => setOpen(true)}
          onBlur={() => setOpen(false)}
          onChange={(event) => {
            setValue(event.currentTarget.value);
            setTyped(true);
            setOpen(true);
            setActive(-1);
            onEdit();
          }}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault();
              setOpen(true);
              setActive((index) => Math.min(options.length - 1, index + 1));
            } else if (event.key === 'ArrowUp') {
              event.preventDefault();
              setActive((index) => Math.max(-1, index - 1));
            } else if (event.key === 'Enter' && shown && active >= 0) {
              event.preventDefault();
              pick(options[active]!);
            } else if (event.key === 'Escape' && shown) {
              // The list closes; a second Escape closes the dialog.
              event.preventDefault();
              setOpen(false);
            }
          }}
        />
        <div
          id={listId}
          role="listbox"
          aria-label={typed ? 'Folders' : 'Recent folders'}
          className="directory-options"
          hidden={!shown}
        >
          {shown &&
            options.map((path, index) => (
              <div
                key={path}
                id={`${id}-option-${index}`}
                role="option"
                tabIndex={-1}
                aria-selected={index === active}
                className="directory-option"
                onMouseDown={(event) => {
                  // Keeps the focus in the input (no blur closing the list first).
                  event.preventDefault();
                  pick(path);
                }}
                onKeyDown={(event) => {
                  if (event.key === 'Enter') pick(path);
                }}
              >
                {path}
              </div>
            ))}
        </div>
      </div>
      <span className="small" id={`${id}-hint`}>
        {typed
          ? 'Type a path; ~ is your home folder.'
          : recent.length > 0
            ? 'Recent folders are offered below.'
            : 'Type a path; ~ is your home folder.'}
        {info !== null && info.allowRoots.length > 0 && ` Allowed under: ${info.allowRoots.join(', ')}`}
      </span>
      {error !== null && (
        <span className="composer-error" id={errorId} role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
