import { ValueStore } from './valueStore.ts';

/** Where the transcript's scroller is (its `scrollTop`, `scrollHeight` and `clientHeight`). */
export interface ScrollMetrics {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
}

/** One transcript item as the follow logic sees it: its stable key, and whether it counts as new content. */
export interface FollowItem {
  key: string;
  counts: boolean;
}

export interface FollowState {
  /** The view sticks to the newest content (the person is at the bottom, or asked to be). */
  following: boolean;
  /** Items that arrived below since the person last saw the bottom (what "Jump to latest" says). */
  unseen: number;
}

/**
 * Whether the transcript follows its newest content, and how much arrived out of sight: the decisions of
 * a chat view's scrolling, without the DOM, so they are unit-tested (the `Transcript` feeds it scroll
 * events and item lists, and sticks to the bottom while `following`).
 *
 * Following stops on the person's intent to leave the bottom (a wheel, key or touch upward, or a scroll
 * that moved up): judged by position alone, content that grew between two frames would read as "scrolled
 * up" and streaming would lose the bottom. It resumes when the person reaches the bottom again, or asks
 * (Jump to latest, a send). Programmatic sticks move down, so they never stop it.
 */
export class ScrollFollow {
  readonly state = new ValueStore<FollowState>({ following: true, unseen: 0 });
  /** Within this many pixels of the end counts as at the bottom when coming down to it. */
  readonly #threshold: number;
  #lastTop: number | null = null;
  #items: readonly FollowItem[] = [];
  /** The newest item the person has seen; the unseen ones are the counted items after it. */
  #seenKey: string | null = null;

  constructor(options: { threshold?: number } = {}) {
    this.#threshold = options.threshold ?? 80;
  }

  get following(): boolean {
    return this.state.get().following;
  }

  /** A scroll event, by anyone: up and away from the end stops following; down to the end resumes it. */
  scrolled(metrics: ScrollMetrics): void {
    const fromEnd = metrics.scrollHeight - metrics.scrollTop - metrics.clientHeight;
    const movedUp = this.#lastTop !== null && metrics.scrollTop < this.#lastTop - 1;
    this.#lastTop = metrics.scrollTop;
    // A shrinking row clamps scrollTop upward too, but leaves the view at the end: still following.
    if (movedUp && fromEnd > 2) this.#set(false);
    else if (!movedUp && fromEnd <= this.#threshold) this.follow();
  }

  /** The person asked to go up (wheel, PageUp, ↑, Home, a drag): stop before the next stick can undo it. */
  leftBottom(): void {
    this.#set(false);
  }

  /** Follow again from here (Jump to latest, a send): everything there is counts as seen. */
  follow(): void {
    this.#seenKey = this.#items.at(-1)?.key ?? null;
    this.#set(true);
  }

  /** The transcript's items now; while following they are all seen, otherwise the new ones are counted. */
  itemsChanged(items: readonly FollowItem[]): void {
    this.#items = items;
    if (this.following) this.#seenKey = items.at(-1)?.key ?? null;
    this.#publish();
  }

  /** The person scrolled down far enough to see the item with this key (and everything before it). */
  saw(key: string): void {
    const index = this.#items.findIndex((item) => item.key === key);
    const seen = this.#seenKey === null ? -1 : this.#items.findIndex((item) => item.key === this.#seenKey);
    if (index > seen) {
      this.#seenKey = key;
      this.#publish();
    }
  }

  #set(following: boolean): void {
    if (following) this.#seenKey = this.#items.at(-1)?.key ?? null;
    this.state.update((state) => (state.following === following ? state : { ...state, following }));
    this.#publish();
  }

  #publish(): void {
    const unseen = this.following ? 0 : this.#countAfterSeen();
    this.state.update((state) => (state.unseen === unseen ? state : { ...state, unseen }));
  }

  #countAfterSeen(): number {
    // A seen item that is gone (the list was replaced) leaves nothing to count rather than everything.
    const seen = this.#seenKey === null ? -1 : this.#items.findIndex((item) => item.key === this.#seenKey);
    if (seen === -1 && this.#seenKey !== null) return 0;
    let count = 0;
    for (let index = seen + 1; index < this.#items.length; index++) if (this.#items[index]!.counts) count++;
    return count;
  }
}
