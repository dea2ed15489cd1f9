import type { HistoryList, HistoryProject, HistorySession } from '@outrigger/host-api';

/** One line of the history list as the view lays it out (virtualized: only the lines in view are mounted). */
export type HistoryRow =
  | { kind: 'project'; key: string; project: HistoryProject; open: boolean }
  | { kind: 'session'; key: string; session: HistorySession; last: boolean };

/**
 * The list flattened into lines for the virtualizer: each project's header, then its sessions unless the
 * person folded it. A search shows every match, folded projects included (a hit must not hide).
 */
export function historyRows(list: HistoryList, folded: ReadonlySet<string>, searching: boolean): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (const project of list.projects) {
    const open = searching || !folded.has(project.cwd);
    rows.push({ kind: 'project', key: `p:${project.cwd}`, project, open });
    if (!open) continue;
    for (const [index, session] of project.sessions.entries())
      rows.push({
        kind: 'session',
        key: `s:${session.claudeSessionId}`,
        session,
        last: index === project.sessions.length - 1,
      });
  }
  return rows;
}
