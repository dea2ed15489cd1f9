/**
 * `623 ms`, `4.2 s`, `1 m 12 s`, `2 h 5 m`: a duration for a footer or a tooltip. Under a second it says
 * the milliseconds (a 623 ms turn is not "1 s"); each unit rounds once, so 59.6 s reads `1 m 0 s`, not `60 s`.
 */
export function formatDuration(ms: number): string {
  const millis = Math.max(0, Math.round(ms));
  if (millis < 1000) return `${millis} ms`;
  const tenths = Math.round(millis / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(millis / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} m ${seconds % 60} s`;
  const totalMinutes = Math.round(seconds / 60);
  return `${Math.floor(totalMinutes / 60)} h ${totalMinutes % 60} m`;
}

/** `0:07`, `12:30`, `1:02:03`: a running clock. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** `850`, `12.3k`, `1.2M` tokens. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(Math.round(count));
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** `$0.0042`, `$0.12`, `$3.40`; unknown stays unknown. */
export function formatCost(usd: number | null): string | null {
  if (usd === null) return null;
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** The last path segment, for a compact label; the full path goes in a title. */
export function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  const index = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return index === -1 ? trimmed : trimmed.slice(index + 1) || trimmed;
}

/** What went wrong, in words, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `just now`, `5 min ago`, `3 h ago`, `yesterday`, `4 days ago`, then the date: a last-activity label. */
export function formatAgo(at: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - at) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return 'yesterday';
  if (days < 30) return `${days} days ago`;
  return new Date(at).toISOString().slice(0, 10);
}
