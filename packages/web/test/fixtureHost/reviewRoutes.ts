import type { IncomingMessage } from 'node:http';
import {
  filePatchQuerySchema,
  revertBodySchema,
  rewindBodySchema,
  worktreeActionBodySchema,
} from '@outrigger/host-api';
import type { FakeSession } from './fakeSession.ts';
import { HttpError } from './httpError.ts';

export type ReviewRoute = [
  string,
  RegExp,
  (match: RegExpExecArray, body: unknown, request: IncomingMessage) => Promise<unknown>,
];

/**
 * The review-and-undo routes of the fixture host (changes, patch, rewind, revert, worktree), over each
 * session's in-memory checkpoints and worktree; each change is said on the session's stream as the host says it.
 */
export function reviewRoutes(sessionOf: (id: string) => FakeSession): ReviewRoute[] {
  return [
    [
      'GET',
      /^\/api\/sessions\/([^/]+)\/changes$/,
      async (m) => {
        const session = sessionOf(m[1]!);
        return session.checkpoints.changes(session.userTurnIds(), session.running?.turnId ?? null);
      },
    ],
    [
      'GET',
      /^\/api\/sessions\/([^/]+)\/patch$/,
      async (m, _body, request) => {
        const query = Object.fromEntries(new URL(request.url ?? '/', 'http://x').searchParams);
        const { from, to, path } = filePatchQuerySchema.parse(query);
        return sessionOf(m[1]!).checkpoints.patch(from, to, path);
      },
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/rewind$/,
      async (m, body) => {
        const session = sessionOf(m[1]!);
        const rewind = rewindBodySchema.parse(body);
        const dryRun = rewind.dryRun === true;
        if (!dryRun) session.mustBeIdle('rewind');
        const result = session.checkpoints.rewind(rewind, dryRun);
        if (result.safetyCheckpoint !== null)
          session.emit('files_rewound', {
            turnId: rewind.turnId ?? null,
            target: result.target,
            safetyCheckpoint: result.safetyCheckpoint,
            files: result.files,
          });
        return result;
      },
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/revert$/,
      async (m, body) => {
        const session = sessionOf(m[1]!);
        const revert = revertBodySchema.parse(body);
        if (revert.dryRun !== true) session.mustBeIdle('revert');
        const result = session.checkpoints.revert(revert);
        if (result.safetyCheckpoint !== null)
          session.emit('files_rewound', {
            turnId: null,
            target: result.target,
            safetyCheckpoint: result.safetyCheckpoint,
            files: result.files,
          });
        return result;
      },
    ],
    ['GET', /^\/api\/sessions\/([^/]+)\/worktree$/, async (m) => worktreeOf(sessionOf(m[1]!)).status()],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/worktree$/,
      async (m, body) => {
        const session = sessionOf(m[1]!);
        const worktree = worktreeOf(session);
        const action = worktreeActionBodySchema.parse(body);
        session.mustBeIdle(action.action === 'merge' ? 'merge' : 'remove the worktree');
        const response = action.action === 'merge' ? worktree.merge() : worktree.remove(action.action === 'discard');
        if (response.fastForward !== null || action.action !== 'merge')
          session.emit('worktree', { worktree: response.worktree });
        if (action.action !== 'merge') {
          // Its directory is gone: the session takes no more turns.
          session.detail = { ...session.detail, closed: true };
          session.publishStatus();
        }
        return response;
      },
    ],
  ];
}

function worktreeOf(session: FakeSession) {
  if (session.worktree === null) throw new HttpError('not_found', 'the session has no worktree');
  return session.worktree;
}
