import { useVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import type { TimelineItem } from '../data/timeline.ts';
import { type TranscriptActions, TranscriptItem } from './TranscriptItem.tsx';

/**
 * The virtualized transcript: only the rows in view are mounted, so a session of thousands of rows
 * opens and scrolls like a short one. It follows the newest row while the person is at the bottom,
 * stays put when they scrolled up, and pages older rows in when they reach the top.
 */
export function Transcript({
  items,
  actions,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  after,
  empty,
}: {
  items: TimelineItem[];
  actions: TranscriptActions;
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => Promise<void>;
  after: ReactNode;
  empty: ReactNode;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 72,
    getItemKey: (index) => items[index]?.key ?? index,
    overscan: 8,
  });

  const stickToBottom = useCallback(() => {
    const element = scroller.current;
    if (element !== null && atBottom.current && items.length > 0) element.scrollTop = element.scrollHeight;
  }, [items.length]);

  // Follow new content (and row growth while streaming) only when the person is at the bottom.
  const total = virtualizer.getTotalSize();
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-run when the content grows
  useLayoutEffect(stickToBottom, [items, total, after, stickToBottom]);

  const loadOlder = useCallback(() => {
    const firstKey = items[0]?.key;
    const countBefore = items.length;
    void onLoadOlder().then(() => {
      requestAnimationFrame(() => {
        if (firstKey === undefined) return;
        const added = Math.max(0, virtualizer.options.count - countBefore);
        if (added > 0) virtualizer.scrollToIndex(added, { align: 'start' });
      });
    });
  }, [items, onLoadOlder, virtualizer]);

  useEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const onScroll = () => {
      atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
      if (element.scrollTop < 200 && hasOlder && !loadingOlder) loadOlder();
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, [hasOlder, loadingOlder, loadOlder]);

  const virtualItems = virtualizer.getVirtualItems();
  return (
    <div
      className="transcript"
      ref={scroller}
      role="log"
      aria-label="Conversation"
      aria-live="off"
      tabIndex={-1}
      id="transcript"
    >
      {hasOlder && (
        <div className="older">
          <button type="button" className="btn btn-small" onClick={loadOlder} disabled={loadingOlder}>
            {loadingOlder ? 'Loading earlier messages…' : 'Load earlier messages'}
          </button>
        </div>
      )}
      {items.length === 0 && empty}
      <div className="transcript-inner" style={{ height: total }}>
        {virtualItems.map((virtual) => {
          const item = items[virtual.index];
          if (item === undefined) return null;
          return (
            <div
              key={virtual.key}
              className="item"
              data-index={virtual.index}
              data-kind={item.kind}
              ref={virtualizer.measureElement}
              style={{ transform: `translateY(${virtual.start}px)` }}
            >
              <div className="column">
                <TranscriptItem item={item} actions={actions} />
              </div>
            </div>
          );
        })}
      </div>
      {after}
    </div>
  );
}
