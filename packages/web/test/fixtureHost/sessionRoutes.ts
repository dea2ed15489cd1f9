import {
  archiveSessionBodySchema,
  directoryCompletionQuerySchema,
  type SessionSearchHit,
  type SessionSummary,
  sessionSearchQuerySchema,
} from '@outrigger/host-api';
import type { FakeSession, HostEventInput } from './fakeSession.ts';
import { HttpError } from './httpError.ts';
import type { ReviewRoute } from './reviewRoutes.ts';

/** The fixture's file system, as far as the working-directory field can see it: these directories, nothing else. */
export const fixtureDirectories = [
  '/work',
  '/work/project',
  '/work/project/src',
  '/work/project/test',
  '/work/api',
  '/work/app',
  '/work/notes',
  '/home/me',
  '/home/me/code',
  '/home/me/code/outrigger',
];
export const fixtureHome = '/home/me';

export function expandHome(path: string): string {
  if (path === '~') return fixtureHome;
  return path.startsWith('~/') ? `${fixtureHome}/${path.slice(2)}` : path;
}

/**
 * As the host refuses a working directory: the field's label, the path repeated, `~` expanded. The fixture's
 * directories are `fixtureDirectories` and every folder under `/work` or `/tmp` (so other tests' made-up
 * folders still work), except names with `missing` in them.
 */
export function checkCwd(cwd: string): string {
  const expanded = expandHome(cwd);
  if (!expanded.startsWith('/'))
    throw new HttpError(
      'validation_failed',
      `Working directory: ${cwd} is not an absolute path: start it with / or ~`,
      [{ path: 'cwd', message: 'is not an absolute path' }],
    );
  const known =
    fixtureDirectories.includes(expanded.replace(/\/$/, '')) ||
    ((expanded.startsWith('/work/') || expanded.startsWith('/tmp')) && !expanded.includes('missing'));
  if (!known)
    throw new HttpError('validation_failed', `Working directory: ${expanded} does not exist`, [
      { path: 'cwd', message: `${expanded} does not exist` },
    ]);
  return expanded.length > 1 ? expanded.replace(/\/$/, '') : expanded;
}

/**
 * The session-management routes of the fixture host, as the host answers them (docs/host-api.md, "Managing
 * sessions"): archive and restore, delete, search over titles and prompts, recent directories, completion.
 */
export function sessionRoutes(
  sessions: Map<string, FakeSession>,
  sessionOf: (id: string) => FakeSession,
  publishHost: (event: HostEventInput) => void,
): ReviewRoute[] {
  const quiet = (session: FakeSession, what: string) => {
    const { status } = session.summary();
    if (status === 'running')
      throw new HttpError('conflict', `the session is running; stop it or let it finish before it is ${what}`);
    if (status === 'needs_input')
      throw new HttpError('conflict', `the session waits for an answer; answer or stop it before it is ${what}`);
  };
  return [
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/archive$/,
      async (m, body) => {
        const session = sessionOf(m[1]!);
        const { archived } = archiveSessionBodySchema.parse(body);
        if (archived) quiet(session, 'archived');
        session.archivedAt = archived ? (session.archivedAt ?? Date.now()) : null;
        session.publishSummary();
        return session.summary();
      },
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/delete$/,
      async (m) => {
        const session = sessionOf(m[1]!);
        quiet(session, 'deleted');
        sessions.delete(session.id);
        publishHost({ type: 'session_deleted', data: { session_id: session.id } });
        return {
          sessionId: session.id,
          claudeTranscriptIds: [session.detail.providerSessionId],
          checkpointsRemoved: true,
        };
      },
    ],
    [
      'GET',
      /^\/api\/search\/sessions$/,
      async (_m, _b, request) => {
        const url = new URL(request.url ?? '/', 'http://x');
        const query = sessionSearchQuerySchema.parse(Object.fromEntries(url.searchParams));
        const needle = query.q.toLowerCase();
        const archived = query.archived ?? 'include';
        const results: SessionSearchHit[] = [];
        for (const session of [...sessions.values()].reverse()) {
          const summary: SessionSummary = session.summary();
          if (archived === 'exclude' && summary.archivedAt !== null) continue;
          if (archived === 'only' && summary.archivedAt === null) continue;
          if (summary.title.toLowerCase().includes(needle)) {
            results.push({ session: summary, match: { field: 'title', text: summary.title, turnId: null } });
            continue;
          }
          const turn = Object.values(session.view.turns)
            .reverse()
            .find((candidate) => candidate.prompt?.toLowerCase().includes(needle));
          if (turn !== undefined)
            results.push({ session: summary, match: { field: 'prompt', text: turn.prompt ?? '', turnId: turn.id } });
        }
        return { results, truncated: false };
      },
    ],
    [
      'GET',
      /^\/api\/directories\/recent$/,
      async () => {
        const seen = new Map<string, number>();
        for (const session of sessions.values()) {
          const { cwd, lastActivityAt } = session.summary();
          if (session.detail.worktree === null) seen.set(cwd, Math.max(seen.get(cwd) ?? 0, lastActivityAt));
        }
        const directories = [...seen].map(([path, lastUsedAt]) => ({ path, lastUsedAt }));
        return { directories: directories.sort((a, b) => b.lastUsedAt - a.lastUsedAt).slice(0, 12) };
      },
    ],
    [
      'GET',
      /^\/api\/directories$/,
      async (_m, _b, request) => {
        const url = new URL(request.url ?? '/', 'http://x');
        const { prefix } = directoryCompletionQuerySchema.parse(Object.fromEntries(url.searchParams));
        const expanded = expandHome(prefix);
        const cut = expanded.lastIndexOf('/') + 1;
        const directory = expanded.slice(0, cut);
        const name = expanded.slice(cut).toLowerCase();
        const parent = directory === '/' ? '' : directory.replace(/\/$/, '');
        if (parent !== '' && !fixtureDirectories.includes(parent) && !parent.startsWith('/home'))
          throw new HttpError('forbidden', `${directory} is outside the directories this host may use`);
        const children = new Set<string>();
        for (const path of fixtureDirectories) {
          if (!path.startsWith(`${parent}/`)) continue;
          const child = path.slice(parent.length + 1).split('/')[0]!;
          if (child.toLowerCase().startsWith(name)) children.add(child);
        }
        const entries = [...children].sort().map((child) => ({ name: child, path: `${directory}${child}/` }));
        return { directory: parent === '' ? '/' : parent, entries, truncated: false };
      },
    ],
  ];
}
