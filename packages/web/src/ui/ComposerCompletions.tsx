import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useId, useMemo, useRef, useState } from 'react';
import { type CompletionItem, CompletionSource } from '../data/composerCompletions.ts';
import { applyCompletion, type ComposerTrigger, triggerAt } from '../data/composerTrigger.ts';
import { messageOf } from '../data/format.ts';
import { useServices } from './appContext.ts';
import './composerControls.css';

/** Files are asked of the host per query: a short pause first, so a fast typist asks once. */
const FILE_DEBOUNCE_MS = 120;

interface Listing {
  readonly trigger: ComposerTrigger;
  readonly items: readonly CompletionItem[];
  readonly truncated: boolean;
  readonly loading: boolean;
  readonly error: string | null;
}

export interface ComposerCompletions {
  /** Spread on the textarea: the listbox it controls, the active option, and the caret it follows. */
  readonly inputProps: {
    'aria-autocomplete': 'list';
    'aria-controls': string | undefined;
    'aria-activedescendant': string | undefined;
    onSelect: () => void;
    onBlur: () => void;
  };
  /** Call first in the textarea's key handler: true when the key moved in or acted on the list. */
  onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>): boolean;
  /** The list, where the composer puts it (above its box). */
  readonly popup: ReactNode;
}

/**
 * `/` at the start of the prompt lists the session's slash commands, `@` at the start of a word its files; arrows
 * move, Enter or Tab inserts, Esc closes. The textarea is the textbox that owns the list (`aria-autocomplete`,
 * `aria-activedescendant`: a textarea cannot take the combobox role); the options are a listbox.
 */
export function useComposerCompletions({
  sessionId,
  text,
  textarea,
  setText,
}: {
  sessionId: string;
  text: string;
  textarea: RefObject<HTMLTextAreaElement | null>;
  setText: (text: string) => void;
}): ComposerCompletions {
  const { client } = useServices();
  const source = useMemo(() => new CompletionSource(client), [client]);
  const listId = useId();
  const [caret, setCaret] = useState<number | null>(null);
  const [listing, setListing] = useState<Listing | null>(null);
  const [active, setActive] = useState(0);
  // Esc closes the list for the word it was open for; typing a new trigger opens it again.
  const [dismissed, setDismissed] = useState<string | null>(null);
  const request = useRef(0);

  const trigger = caret === null ? null : triggerAt(text, caret);
  const triggerKey = trigger === null ? null : `${trigger.kind}:${trigger.start}`;
  const open = trigger !== null && triggerKey !== dismissed;
  const query = trigger?.query;
  const kind = trigger?.kind;

  // The caret follows the text: typing moves it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read the caret whenever the text changes
  useEffect(() => {
    const element = textarea.current;
    if (element !== null && document.activeElement === element) setCaret(element.selectionStart);
  }, [text]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the trigger is keyed by its kind, start and query
  useEffect(() => {
    if (!open || trigger === null) {
      setListing(null);
      return;
    }
    const id = ++request.current;
    setListing((current) => ({
      trigger,
      items: current?.trigger.kind === trigger.kind ? current.items : [],
      truncated: false,
      loading: true,
      error: null,
    }));
    const timer = setTimeout(
      () => {
        source.complete(sessionId, trigger).then(
          (result) => {
            if (id !== request.current) return;
            setListing({ trigger, items: result.items, truncated: result.truncated, loading: false, error: null });
            setActive(0);
          },
          (error: unknown) => {
            if (id !== request.current) return;
            setListing({ trigger, items: [], truncated: false, loading: false, error: messageOf(error) });
          },
        );
      },
      trigger.kind === 'file' ? FILE_DEBOUNCE_MS : 0,
    );
    return () => clearTimeout(timer);
  }, [open, kind, query, triggerKey, sessionId, source]);

  const items = open ? (listing?.items ?? []) : [];
  const shown = open && listing !== null;
  const optionId = (index: number) => `${listId}-option-${index}`;

  const choose = (item: CompletionItem) => {
    if (trigger === null) return;
    const next = applyCompletion(text, trigger, item.value);
    setText(next.text);
    setCaret(next.caret);
    requestAnimationFrame(() => {
      const element = textarea.current;
      if (element === null) return;
      element.focus();
      element.setSelectionRange(next.caret, next.caret);
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!shown || event.nativeEvent.isComposing) return false;
    if (event.key === 'Escape') {
      event.preventDefault();
      setDismissed(triggerKey);
      return true;
    }
    if (items.length === 0) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((index) => (index + step + items.length) % items.length);
      return true;
    }
    if ((event.key === 'Enter' && !event.shiftKey) || (event.key === 'Tab' && !event.shiftKey)) {
      const item = items[Math.min(active, items.length - 1)];
      if (item === undefined) return false;
      event.preventDefault();
      choose(item);
      return true;
    }
    return false;
  };

  const label = trigger?.kind === 'command' ? 'Slash commands' : 'Files';
  const empty =
    listing === null || listing.loading
      ? 'Looking…'
      : listing.error !== null
        ? `Could not list them: ${listing.error}`
        : trigger?.kind === 'command'
          ? query === ''
            ? 'Claude Code lists this session’s commands once the session has started.'
            : `No command matches “/${query}”.`
          : `No file under the session’s directory matches “@${query ?? ''}”.`;

  const popup = shown ? (
    <div className="completions">
      {items.length > 0 ? (
        // The textarea moves through the options (aria-activedescendant); -1 only makes the scrolled list focusable.
        <div className="completions-list" role="listbox" id={listId} aria-label={label} tabIndex={-1}>
          {items.map((item, index) => (
            <div
              key={`${item.kind}:${item.value}`}
              id={optionId(index)}
              role="option"
              tabIndex={-1}
              aria-selected={index === active}
              className="completion"
              data-kind={item.kind}
              // The textarea keeps the focus (and the caret) while an option is clicked.
              onMouseDown={(event) => {
                event.preventDefault();
                choose(item);
              }}
              onKeyDown={(event) => {
                if (event.key === 'Enter') choose(item);
              }}
              onMouseEnter={() => setActive(index)}
            >
              <span className="completion-label">{item.label}</span>
              {item.detail !== '' && <span className="completion-detail">{item.detail}</span>}
            </div>
          ))}
        </div>
      ) : (
        <p className="completions-empty small" role="status">
          {empty}
        </p>
      )}
      <p className="completions-foot small" aria-hidden="true">
        ↑↓ choose · Enter or Tab inserts · Esc closes{listing?.truncated ? ' · more match: type to narrow' : ''}
      </p>
    </div>
  ) : null;

  return {
    inputProps: {
      'aria-autocomplete': 'list',
      'aria-controls': shown && items.length > 0 ? listId : undefined,
      'aria-activedescendant': shown && items.length > 0 ? optionId(Math.min(active, items.length - 1)) : undefined,
      onSelect: () => setCaret(textarea.current?.selectionStart ?? null),
      onBlur: () => setCaret(null),
    },
    onKeyDown,
    popup,
  };
}
