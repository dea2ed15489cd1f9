import { editQueuedTurnBodySchema, type MessageView, type QueuedPrompt } from '@outrigger/host-api';
import type { FakeSession } from './fakeSession.ts';
import { HttpError } from './httpError.ts';
import type { ReviewRoute } from './reviewRoutes.ts';

type Queued = QueuedPrompt & { content: MessageView['content'] };

/**
 * The prompt queue's routes of the fixture host, as the host answers them (docs/host-api.md, "Stop must stop"):
 * Edit (`PATCH …/turns/:turnId`), Run now (`POST …/turns/:turnId/run`) and Resume (`POST …/queue/resume`).
 * `start` runs a prompt taken out of the queue as the fixture host runs any turn.
 */
export function queueRoutes(
  sessionOf: (id: string) => FakeSession,
  start: (session: FakeSession, queued: Queued) => void,
): ReviewRoute[] {
  const open = (id: string) => {
    const session = sessionOf(id);
    if (session.detail.closed) throw new HttpError('session_closed', 'the session is closed');
    return session;
  };
  return [
    [
      'PATCH',
      /^\/api\/sessions\/([^/]+)\/turns\/([^/]+)$/,
      async (m, body) => {
        const session = open(m[1]!);
        const { prompt } = editQueuedTurnBodySchema.parse(body);
        const index = session.queue.findIndex((queued) => queued.turnId === m[2]);
        if (index === -1) throw new HttpError('conflict', 'the prompt has already started or ended; it cannot change');
        const queued = session.queue[index]!;
        if (prompt.trim() === '' && queued.imageCount === 0) {
          throw new HttpError('validation_failed', 'the body is invalid', [
            { path: 'prompt', message: 'a prompt needs text or an image' },
          ]);
        }
        const [, ...images] = queued.content;
        const edited = { ...queued, prompt, content: [{ type: 'text' as const, text: prompt }, ...images] };
        session.queue[index] = edited;
        session.emitQueue();
        const { content: _c, ...view } = edited;
        return view;
      },
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/turns\/([^/]+)\/run$/,
      async (m) => {
        const session = open(m[1]!);
        const turnId = m[2]!;
        if (session.running?.turnId === turnId) return { turnId, started: false };
        if (!session.queue.some((queued) => queued.turnId === turnId)) {
          throw new HttpError('conflict', 'the prompt is no longer queued');
        }
        if (session.running !== null) {
          throw new HttpError(
            'conflict',
            'a turn is running: stop it first, or resume the queue to run this prompt after it',
          );
        }
        start(session, session.takeQueued(turnId)!);
        return { turnId, started: true };
      },
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/queue\/resume$/,
      async (m) => {
        const session = open(m[1]!);
        session.resumeQueue();
        let startedTurnId: string | null = null;
        if (session.running === null) {
          const next = session.takeQueued();
          if (next !== undefined) {
            start(session, next);
            startedTurnId = next.turnId;
          }
        }
        session.publishStatus();
        return {
          startedTurnId,
          queuedPrompts: session.queue.map(({ content: _c, ...queued }) => queued),
        };
      },
    ],
  ];
}
