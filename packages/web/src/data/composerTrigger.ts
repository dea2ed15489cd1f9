/**
 * What the composer completes at the caret: a slash command while the prompt's first word starts with `/`,
 * or a file path after an `@` that starts a word. `start`..`end` is the text the choice replaces.
 */
export type ComposerTrigger =
  | { readonly kind: 'command'; readonly query: string; readonly start: number; readonly end: number }
  | { readonly kind: 'file'; readonly query: string; readonly start: number; readonly end: number };

export function triggerAt(text: string, caret: number): ComposerTrigger | null {
  const before = text.slice(0, caret);
  const command = /^\/([^\s/]*)$/.exec(before);
  if (command !== null) return { kind: 'command', query: command[1] ?? '', start: 0, end: wordEnd(text, caret) };
  const file = /(^|\s)@([^\s@]*)$/.exec(before);
  if (file !== null) {
    const query = file[2] ?? '';
    return { kind: 'file', query, start: caret - query.length - 1, end: wordEnd(text, caret) };
  }
  return null;
}

/** The text with the trigger's word replaced, and where the caret goes (after the space that follows). */
export function applyCompletion(
  text: string,
  trigger: ComposerTrigger,
  value: string,
): { readonly text: string; readonly caret: number } {
  const inserted = trigger.kind === 'command' ? `/${value}` : `@${value}`;
  // A directory keeps the completion open for its files; anything else ends the word.
  const separator = value.endsWith('/') ? '' : ' ';
  const after = text.slice(trigger.end);
  const glue = separator !== '' && after.startsWith(' ') ? '' : separator;
  const next = `${text.slice(0, trigger.start)}${inserted}${glue}${after}`;
  return { text: next, caret: trigger.start + inserted.length + (glue === '' && separator !== '' ? 1 : glue.length) };
}

function wordEnd(text: string, caret: number): number {
  const rest = /^[^\s]*/.exec(text.slice(caret));
  return caret + (rest?.[0].length ?? 0);
}
