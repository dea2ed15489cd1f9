import type { Virtualizer } from '@tanstack/react-virtual';
import { type RefObject, useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { type FollowState, ScrollFollow } from '../data/scrollFollow.ts';
import type { TimelineItem } from '../data/timeline.ts';
import { firstWaitingIndex } from '../data/waitingItem.ts';
import { useValue } from './hooks.ts';

/** Keys that move the view up: pressing one means "let me read", so following stops before the next stick. */
const upKeys = new Set(['ArrowUp', 'PageUp', 'Home']);

export interface FollowScroll {
  state: FollowState;
  /** Jump to latest: follow again from the newest content. */
  jumpToLatest(): void;
  /** The ref for each rendered item (with the virtualizer's own measuring): a row that grows is followed. */
  observeItem(element: HTMLElement | null): (() => void) | undefined;
}

/**
 * The transcript's scrolling, on `ScrollFollow`'s decisions: sticks to the bottom while following (on a
 * render, and between renders when a row, the trailing block or the window changes size, so a streaming
 * row never paints below the fold first), leaves the person's place alone when content arrives while they
 * read (the virtualizer keeps it when older rows come in above), follows again on a send (a new id in `sendIds`), and on opening a session that waits for an
 * answer brings the waiting card into view and focuses it.
 */
export function useFollowScroll({
  scroller,
  inner,
  trailing,
  items,
  sendIds,
  virtualizer,
}: {
  scroller: RefObject<HTMLDivElement | null>;
  inner: RefObject<HTMLDivElement | null>;
  trailing: RefObject<HTMLDivElement | null>;
  items: readonly TimelineItem[];
  sendIds: readonly string[];
  virtualizer: Virtualizer<HTMLDivElement, Element>;
}): FollowScroll {
  const follow = useMemo(() => new ScrollFollow(), []);
  const state = useValue(follow.state);
  /** Set once the first items came: what opening the session did is done. */
  const opened = useRef(false);
  const knownSends = useRef<Set<string> | null>(null);

  const stick = useCallback(() => {
    const element = scroller.current;
    if (element !== null && follow.following) element.scrollTop = element.scrollHeight;
  }, [scroller, follow]);

  // Before paint: what the items are, then the stick for them. (Rows paged in above keep the place by the
  // virtualizer's own anchoring, `anchorTo: 'end'`.)
  const total = virtualizer.getTotalSize();
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-run when the content grows
  useLayoutEffect(() => {
    follow.itemsChanged(items.map((item) => ({ key: item.key, counts: item.kind !== 'footer' })));
    stick();
  }, [items, total, follow, stick]);

  // A send brings the person to their message, wherever they were (a reload's resumed sends included).
  useLayoutEffect(() => {
    const known = knownSends.current;
    knownSends.current = new Set(sendIds);
    if (known === null || !sendIds.some((id) => !known.has(id))) return;
    follow.follow();
    stick();
  }, [sendIds, follow, stick]);

  // Opening a session that waits: its first waiting card in view (context above it when it fits), focused.
  useEffect(() => {
    if (opened.current || items.length === 0) return;
    opened.current = true;
    const index = firstWaitingIndex(items);
    if (index === -1) return;
    follow.leftBottom();
    virtualizer.scrollToIndex(index, { align: 'start' });
    let frames = 0;
    let handle = 0;
    const place = () => {
      const element = scroller.current;
      const card = element?.querySelector<HTMLElement>(`[data-index="${index}"] section.prompt`);
      if (element == null || card == null) {
        if (++frames < 30) handle = requestAnimationFrame(place);
        return;
      }
      const top = card.getBoundingClientRect().top - element.getBoundingClientRect().top + element.scrollTop;
      const fits = card.offsetHeight + 16 <= element.clientHeight;
      if (fits && element.scrollHeight - element.clientHeight <= top - 8) {
        // At the end the card is wholly in view: stay there and keep following (the usual case).
        follow.follow();
        stick();
      } else element.scrollTop = fits ? top + card.offsetHeight + 8 - element.clientHeight : top - 8;
      // A section takes focus only from code: keyboard and screen reader users start at the card, and an
      // Enter pressed on arrival answers nothing by accident.
      if (!card.hasAttribute('tabindex')) card.tabIndex = -1;
      card.focus({ preventScroll: true });
    };
    // Two frames: the virtualizer mounts and measures the rows around the card first.
    handle = requestAnimationFrame(() => {
      handle = requestAnimationFrame(place);
    });
    return () => cancelAnimationFrame(handle);
  }, [items, follow, virtualizer, scroller, stick]);

  // Scroll events feed the decisions; wheel, touch and keys upward stop following at once.
  useEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const onScroll = () => {
      follow.scrolled(element);
      if (follow.following) return;
      // The newest item whose top is in view counts as seen: the count goes down while scrolling down.
      const bottom = element.scrollTop + element.clientHeight;
      const offset = inner.current?.offsetTop ?? 0;
      const visible = virtualizer.getVirtualItems().filter((item) => offset + item.start < bottom);
      const last = visible.at(-1);
      if (last !== undefined) follow.saw(String(last.key));
    };
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0) follow.leftBottom();
    };
    let touchY: number | null = null;
    const onTouchStart = (event: TouchEvent) => {
      touchY = event.touches[0]?.clientY ?? null;
    };
    const onTouchMove = (event: TouchEvent) => {
      const y = event.touches[0]?.clientY;
      // A finger moving down drags the content down: the view goes up.
      if (touchY !== null && y !== undefined && y > touchY + 4) follow.leftBottom();
    };
    const onKey = (event: KeyboardEvent) => {
      if (upKeys.has(event.key) && event.target === element) follow.leftBottom();
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    element.addEventListener('wheel', onWheel, { passive: true });
    element.addEventListener('touchstart', onTouchStart, { passive: true });
    element.addEventListener('touchmove', onTouchMove, { passive: true });
    element.addEventListener('keydown', onKey);
    return () => {
      element.removeEventListener('scroll', onScroll);
      element.removeEventListener('wheel', onWheel);
      element.removeEventListener('touchstart', onTouchStart);
      element.removeEventListener('touchmove', onTouchMove);
      element.removeEventListener('keydown', onKey);
    };
  }, [scroller, inner, follow, virtualizer]);

  // Between renders: a row that grew, the block after the rows, or the window (the composer grew).
  const resizes = useMemo(() => (typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(stick)), [stick]);
  useEffect(() => {
    if (resizes === null) return;
    if (scroller.current !== null) resizes.observe(scroller.current);
    if (trailing.current !== null) resizes.observe(trailing.current);
    return () => resizes.disconnect();
  }, [resizes, scroller, trailing]);

  const observeItem = useCallback(
    (element: HTMLElement | null) => {
      if (element === null || resizes === null) return undefined;
      resizes.observe(element);
      return () => resizes.unobserve(element);
    },
    [resizes],
  );

  const jumpToLatest = useCallback(() => {
    follow.follow();
    stick();
    // Rows mounted by the jump are measured next frame; the layout effect sticks again when the size settles.
    scroller.current?.focus({ preventScroll: true });
  }, [follow, stick, scroller]);

  return { state, jumpToLatest, observeItem };
}
