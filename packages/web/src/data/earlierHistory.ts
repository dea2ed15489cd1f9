import type { ContinuedFrom } from '@outrigger/host-api';
import type { SessionViewState } from './sessionState.ts';
import { type TimelineItem, timeline } from './timeline.ts';

/** The Claude Code history of a continued session, as far as it is shown. */
export interface EarlierHistory {
  continuedFrom: ContinuedFrom;
  open: boolean;
  /** The transcript's rows read so far (null until opened and loaded). */
  view: SessionViewState | null;
}

/*
 * The history's items keep their identity while their row does (a delta of the session's own stream rebuilds
 * the timeline, and the memoized rows above it must not all render again); their keys are marked so they never
 * meet a key of the session's own rows, and they are read-only: the session's actions are not theirs.
 */
const marked = new WeakMap<TimelineItem, TimelineItem>();
function earlierItem(item: TimelineItem): TimelineItem {
  let copy = marked.get(item);
  if (copy === undefined) {
    copy = { ...item, key: `earlier:${item.key}`, readOnly: true };
    marked.set(item, copy);
  }
  return copy;
}

/**
 * A continued session's items with its Claude Code history above its own turns: a folded "Earlier, in Claude
 * Code" line, or, opened, that line, the history's rows (laid out as a session's) and a line where Outrigger
 * took over. Only once the session's own oldest rows are loaded: the history sits above all of them.
 */
export function withEarlierHistory(
  items: TimelineItem[],
  earlier: EarlierHistory | null,
  sessionHasOlder: boolean,
): TimelineItem[] {
  if (earlier === null || earlier.continuedFrom.rows === 0 || sessionHasOlder) return items;
  const rows = earlier.continuedFrom.rows;
  const start: TimelineItem = { kind: 'earlier', key: 'earlier:start', edge: 'start', open: earlier.open, rows };
  if (!earlier.open) return [start, ...items];
  const history = earlier.view === null ? [] : timeline(earlier.view).map(earlierItem);
  const end: TimelineItem = { kind: 'earlier', key: 'earlier:end', edge: 'end', open: true, rows };
  return [start, ...history, end, ...items];
}
