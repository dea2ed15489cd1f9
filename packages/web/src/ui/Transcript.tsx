import { useVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useCallback, useEffect, useRef } from 'react';
import type { TimelineItem } from '../data/timeline.ts';
import { Icon } from './Icon.tsx';
import { TranscriptItem } from './TranscriptItem.tsx';
import type { TranscriptActions } from './transcriptActions.ts';
import { useFollowScroll } from './useFollowScroll.ts';

/** The height of the "Load earlier messages" bar above the first row. */
const olderBarPx = 52;

/**
 * The virtualized transcript: only the rows in view are mounted, so a session of thousands of rows
 * opens and scrolls like a short one. It follows the newest content while the person is at the bottom,
 * keeps their place when they scrolled up (with "Jump to latest" and a count of what came since), brings
 * them to their message when they send, opens at the card that waits for them, and pages older rows in
 * when they reach the top (see `useFollowScroll`).
 */
export function Transcript({
  items,
  actions,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  sendIds,
  after,
  empty,
}: {
  items: TimelineItem[];
  actions: TranscriptActions;
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => Promise<void>;
  /** This session's sends still on their way: a new one brings the view to the bottom. */
  sendIds: readonly string[];
  after: ReactNode;
  empty: ReactNode;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLDivElement>(null);
  const trailing = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 72,
    getItemKey: (index) => items[index]?.key ?? index,
    overscan: 8,
    // The "Load earlier messages" bar sits in the rows' own coordinates: the virtualizer's offsets are then
    // the scroller's, and a row measured above the fold is compensated exactly (the place is kept).
    paddingStart: hasOlder ? olderBarPx : 0,
    // Rows paged in above keep the row in view where it was (the virtualizer anchors it by key).
    anchorTo: 'end',
  });
  const follow = useFollowScroll({ scroller, inner, trailing, items, sendIds, virtualizer });

  const loadOlder = useCallback(() => void onLoadOlder(), [onLoadOlder]);

  useEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const onScroll = () => {
      if (element.scrollTop < 200 && hasOlder && !loadingOlder) loadOlder();
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, [hasOlder, loadingOlder, loadOlder]);

  const measure = useCallback(
    (element: HTMLDivElement | null) => {
      virtualizer.measureElement(element);
      return follow.observeItem(element);
    },
    [virtualizer, follow.observeItem],
  );

  const total = virtualizer.getTotalSize();
  const virtualItems = virtualizer.getVirtualItems();
  const { following, unseen } = follow.state;
  return (
    <div className="transcript-wrap">
      <div
        className="transcript"
        ref={scroller}
        role="log"
        aria-label="Conversation"
        aria-live="off"
        tabIndex={-1}
        id="transcript"
      >
        {items.length === 0 && empty}
        <div className="transcript-inner" ref={inner} style={{ height: total }}>
          {hasOlder && (
            <div className="older" style={{ height: olderBarPx }}>
              <button type="button" className="btn btn-small" onClick={loadOlder} disabled={loadingOlder}>
                {loadingOlder ? 'Loading earlier messages…' : 'Load earlier messages'}
              </button>
            </div>
          )}
          {virtualItems.map((virtual) => {
            const item = items[virtual.index];
            if (item === undefined) return null;
            return (
              <div
                key={virtual.key}
                className="item"
                data-index={virtual.index}
                data-kind={item.kind}
                ref={measure}
                style={{ transform: `translateY(${virtual.start}px)` }}
              >
                <div className="column">
                  <TranscriptItem item={item} actions={actions} />
                </div>
              </div>
            );
          })}
        </div>
        <div ref={trailing}>{after}</div>
      </div>
      {!following && items.length > 0 && (
        <button type="button" className="jump-latest" onClick={follow.jumpToLatest}>
          <Icon name="chevron" />
          Jump to latest
          {unseen > 0 && ' '}
          {unseen > 0 && (
            <span className="jump-count">
              {unseen} new<span className="sr-only"> {unseen === 1 ? 'item' : 'items'} below</span>
            </span>
          )}
        </button>
      )}
      {/* Said once per change, not per streamed word: the log itself is not live (it would read every delta). */}
      <span className="sr-only" role="status">
        {!following && unseen > 0 ? `${unseen} new ${unseen === 1 ? 'item' : 'items'} below` : ''}
      </span>
    </div>
  );
}
