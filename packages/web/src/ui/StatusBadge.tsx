import { type DisplayStatus, statusLabels } from '../data/displayStatus.ts';
import { formatElapsed } from '../data/format.ts';

/** The one way a session's state is drawn: sidebar, header, inbox. */
export function StatusBadge({
  status,
  title,
  runningSinceMs,
  now,
  compact = false,
}: {
  status: DisplayStatus;
  title?: string;
  runningSinceMs?: number | null;
  now?: number;
  compact?: boolean;
}) {
  const elapsed =
    status === 'running' && runningSinceMs != null && now !== undefined
      ? ` ${formatElapsed(now - runningSinceMs)}`
      : '';
  return (
    <span className={`status status-${status}`} title={title}>
      <span className="dot" aria-hidden="true" />
      <span className={compact ? 'sr-only' : undefined}>
        {statusLabels[status]}
        {elapsed}
      </span>
    </span>
  );
}
