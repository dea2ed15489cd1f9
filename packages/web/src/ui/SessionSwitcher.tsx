import { useEffect, useRef, useState } from 'react';
import { displayStatus } from '../data/displayStatus.ts';
import { sortedSessions } from '../data/hostState.ts';
import { useServices } from './appContext.ts';
import { useValue } from './hooks.ts';
import { navigate, sessionHref } from './route.ts';
import { StatusBadge } from './StatusBadge.tsx';

/** Ctrl/Cmd+K: type part of a session's name or folder, Enter jumps to it. */
export function SessionSwitcher({ onClose }: { onClose: () => void }) {
  const { host } = useServices();
  const screen = useValue(host.screen);
  const dialog = useRef<HTMLDialogElement>(null);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const needle = query.trim().toLowerCase();
  const matches = sortedSessions(screen.view)
    .filter((session) => `${session.title} ${session.cwd}`.toLowerCase().includes(needle))
    .slice(0, 12);

  useEffect(() => {
    const element = dialog.current;
    if (element !== null && !element.open) element.showModal();
    return () => element?.close();
  }, []);

  const go = (index: number) => {
    const session = matches[index];
    if (session === undefined) return;
    navigate(sessionHref(session.id));
    dialog.current?.close();
  };

  return (
    <dialog ref={dialog} className="dialog" aria-label="Jump to a session" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          go(active);
        }}
      >
        <input
          className="input"
          value={query}
          placeholder="Jump to a session…"
          aria-label="Session name or folder"
          role="combobox"
          aria-expanded="true"
          aria-controls="switcher-list"
          aria-activedescendant={matches[active] === undefined ? undefined : `switch-${matches[active].id}`}
          onChange={(event) => {
            setQuery(event.currentTarget.value);
            setActive(0);
          }}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault();
              setActive((index) => Math.min(matches.length - 1, index + 1));
            } else if (event.key === 'ArrowUp') {
              event.preventDefault();
              setActive((index) => Math.max(0, index - 1));
            }
          }}
        />
        <div id="switcher-list" role="listbox" aria-label="Sessions" className="switcher-list">
          {matches.map((session, index) => (
            <div
              key={session.id}
              id={`switch-${session.id}`}
              role="option"
              tabIndex={-1}
              aria-selected={index === active}
              className="switcher-item"
              onMouseDown={(event) => {
                event.preventDefault();
                go(index);
              }}
              onKeyDown={(event) => {
                if (event.key === 'Enter') go(index);
              }}
            >
              <span className="name">{session.title}</span>
              <StatusBadge status={displayStatus(session, screen.connection)} />
            </div>
          ))}
          {matches.length === 0 && <p className="muted small">No session matches.</p>}
        </div>
      </form>
    </dialog>
  );
}
