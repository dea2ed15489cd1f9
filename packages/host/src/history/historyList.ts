import { type HistoryList, type HistoryProject, type HistorySession, historyTiming } from '@outrigger/host-api';
import type { HistoryTranscriptRecord, ProviderSessionOwner } from '../store/hostStore.ts';
import type { CwdPlace } from './cwdPlaces.ts';

/*
 * The list of Claude Code's history, from the index's rows: pure, so its rules (which row a session is, which
 * sessions are listed, how they group and sort, what a search matches) are tested without files.
 */

/** A listed session is an indexed transcript the SDK could summarise: its directory is known. */
export type ListedRecord = HistoryTranscriptRecord & { readonly cwd: string };

export function isListable(record: HistoryTranscriptRecord): record is ListedRecord {
  return record.cwd !== null;
}

/**
 * One row per session id: when two project folders hold the same id (a copied folder), the newest file is the
 * session (the SDK's own reads by id find one of them too).
 */
export function sessionRecords(records: Iterable<HistoryTranscriptRecord>): ListedRecord[] {
  const byId = new Map<string, ListedRecord>();
  for (const record of records) {
    if (!isListable(record)) continue;
    const known = byId.get(record.claudeSessionId);
    if (known === undefined || record.mtimeMs > known.mtimeMs) byId.set(record.claudeSessionId, record);
  }
  return [...byId.values()];
}

/**
 * The Outrigger session each Claude Code session id belongs to: the oldest stored session (closed ones too;
 * deleted ones are gone from the store) that ran as it, as its own id or one of its turns'. That is the one a
 * second continue is refused with.
 */
export function ownersById(owners: readonly ProviderSessionOwner[]): Map<string, string> {
  const oldest = new Map<string, ProviderSessionOwner>();
  for (const owner of owners) {
    const known = oldest.get(owner.providerSessionId);
    if (
      known === undefined ||
      owner.createdAt < known.createdAt ||
      (owner.createdAt === known.createdAt && owner.sessionId < known.sessionId)
    ) {
      oldest.set(owner.providerSessionId, owner);
    }
  }
  return new Map([...oldest].map(([id, owner]) => [id, owner.sessionId]));
}

export function historySessionOf(
  record: ListedRecord,
  place: CwdPlace,
  outriggerSessionId: string | null,
  now: number,
): HistorySession {
  return {
    claudeSessionId: record.claudeSessionId,
    cwd: record.cwd,
    title: record.customTitle ?? record.summary ?? record.firstPrompt ?? record.claudeSessionId,
    firstPrompt: record.firstPrompt,
    gitBranch: record.gitBranch,
    createdAt: record.createdAt,
    lastActivityAt: record.mtimeMs,
    messageCount: record.messageCount,
    bytes: record.size,
    recentlyActive: now - record.mtimeMs < historyTiming.recentlyActiveMs,
    cwdExists: place.exists,
    outriggerSessionId,
  };
}

/** `q` as typed, case-insensitively, in the title, the first prompt, the directory or the branch. */
function matchesSearch(session: HistorySession, q: string | undefined): boolean {
  if (q === undefined) return true;
  const needle = q.toLowerCase();
  return [session.title, session.firstPrompt, session.cwd, session.gitBranch].some(
    (field) => field?.toLowerCase().includes(needle) === true,
  );
}

export interface HistoryListInput {
  readonly records: readonly ListedRecord[];
  readonly places: ReadonlyMap<string, CwdPlace>;
  readonly owners: ReadonlyMap<string, string>;
  readonly q: string | undefined;
  readonly now: number;
  readonly configDir: string;
  readonly indexState: HistoryList['indexState'];
  readonly revision: number;
}

/**
 * Grouped by directory, each project's sessions newest first, projects by their newest session. Sessions
 * outside the allowed roots are counted, not listed, whatever the search: the count says nothing of their text.
 */
export function buildHistoryList(input: HistoryListInput): HistoryList {
  const projects = new Map<string, HistoryProject>();
  let hiddenOutsideRoots = 0;
  let total = 0;
  for (const record of input.records) {
    const place = input.places.get(record.cwd) ?? { inside: false, exists: false };
    if (!place.inside) {
      hiddenOutsideRoots += 1;
      continue;
    }
    const session = historySessionOf(record, place, input.owners.get(record.claudeSessionId) ?? null, input.now);
    if (!matchesSearch(session, input.q)) continue;
    total += 1;
    let project = projects.get(record.cwd);
    if (project === undefined) {
      project = { cwd: record.cwd, cwdExists: place.exists, sessions: [] };
      projects.set(record.cwd, project);
    }
    project.sessions.push(session);
  }
  const newestFirst = (a: HistorySession, b: HistorySession) =>
    b.lastActivityAt - a.lastActivityAt || a.claudeSessionId.localeCompare(b.claudeSessionId);
  for (const project of projects.values()) project.sessions.sort(newestFirst);
  const sorted = [...projects.values()].sort(
    (a, b) => newestFirst(a.sessions[0]!, b.sessions[0]!) || a.cwd.localeCompare(b.cwd),
  );
  return {
    configDir: input.configDir,
    projects: sorted,
    total,
    hiddenOutsideRoots,
    indexState: input.indexState,
    revision: input.revision,
  };
}
