/** What drafts need of `localStorage`. */
export type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const prefix = 'outrigger.draft.';

/**
 * The unsent text of each session's composer, kept in the browser so a reload, a crash or a switch to
 * another session never loses it. Storage errors (quota, private mode) lose the draft's persistence,
 * never the text on screen.
 */
export class Drafts {
  readonly #storage: DraftStorage | undefined;

  constructor(storage: DraftStorage | undefined) {
    this.#storage = storage;
  }

  get(sessionId: string): string {
    try {
      return this.#storage?.getItem(prefix + sessionId) ?? '';
    } catch {
      return '';
    }
  }

  set(sessionId: string, text: string): void {
    try {
      if (text === '') this.#storage?.removeItem(prefix + sessionId);
      else this.#storage?.setItem(prefix + sessionId, text);
    } catch {
      // Persistence is best effort; the composer still holds the text.
    }
  }
}
