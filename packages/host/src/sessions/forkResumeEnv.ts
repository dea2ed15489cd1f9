import type { SessionRecord } from '../store/records.ts';

/**
 * Claude Code's own marker for "the session this transcript came from is still alive"
 * (`CLAUDE_CODE_RESUME_SOURCE_ALIVE`, read by Claude Code 2.1.332 when it resumes a transcript; not part of
 * the SDK's documented options). Its value is `<session id>|<ISO time>`: only transcript entries newer than
 * that time are the resumed session's own.
 */
export const RESUME_SOURCE_ALIVE_VARIABLE = 'CLAUDE_CODE_RESUME_SOURCE_ALIVE';

/**
 * The environment that keeps a fork from inheriting its source's pending background work. A fork's
 * transcript is a copy of the source's up to the fork turn; when Claude Code resumes it, every background
 * job the copy launched and never saw finish is taken for one orphaned by a previous run of this session:
 * it queues a `<task-notification>` ("… didn't finish before the previous session ended") that goes to the
 * model with the fork's first prompt, which then answered the job instead of the prompt (issue 17; the job
 * still runs, and reports, in the source). With the marker, Claude Code considers only what the fork wrote
 * after it was made (the session's `createdAt`, later than every copied entry); by the same rule a job the
 * fork itself starts and loses to a crash is still reported. Not a fork: nothing. The real binary's test:
 * `test/forkOverHttp.test.ts` (it fails without this).
 */
export function forkResumeEnv(
  session: Partial<Pick<SessionRecord, 'forkedFrom' | 'createdAt' | 'providerSessionId'>>,
): Record<string, string> {
  if (session.forkedFrom == null || session.createdAt === undefined || !session.providerSessionId) return {};
  return {
    [RESUME_SOURCE_ALIVE_VARIABLE]: `${session.providerSessionId}|${new Date(session.createdAt).toISOString()}`,
  };
}
