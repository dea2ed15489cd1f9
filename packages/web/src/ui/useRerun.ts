import type { MessageView } from '@outrigger/host-api';
import { useMemo } from 'react';
import { toBase64 } from '../data/attachments.ts';
import {
  type PromptParts,
  promptPartsOf,
  rerunInNewSession,
  rerunStart,
  rerunTitle,
  retryableTurnId,
} from '../data/promptRerun.ts';
import type { SessionViewState } from '../data/sessionState.ts';
import type { SessionStore } from '../data/sessionStore.ts';
import { useServices } from './appContext.ts';
import { navigate, sessionHref } from './route.ts';
import type { RerunActions } from './UserMessage.tsx';

/**
 * Edit and Retry for a session's transcript: each runs a prompt in a new session from just before its
 * turn, then opens it. The functions read the store's view when called, so the memoized rows keep them
 * across deltas; only a change of the retryable turn (or of what is loaded) makes new ones.
 */
export function useRerun(store: SessionStore, view: SessionViewState): RerunActions {
  const { host, outbox, client } = useServices();
  // Not on every delta: a delta changes rows, never the turns, the session or the queue.
  const { turns, session, queuedPrompts } = view;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the parts of the view the answer reads
  const retryTurnId = useMemo(() => retryableTurnId(view), [turns, session, queuedPrompts, view.hasOlder]);
  const { hasOlder } = view;
  // biome-ignore lint/correctness/useExhaustiveDependencies: hasOlder decides what `editable` answers
  return useMemo<RerunActions>(() => {
    const run = async (row: MessageView, parts: PromptParts, suffix: 'edited' | 'retry') => {
      const view = store.view;
      const start = rerunStart(view, row);
      if (view.session === null || start === null) throw new Error('the conversation before this prompt is not loaded');
      const id = await rerunInNewSession(
        {
          fork: (sessionId, turnId, title) => host.fork(sessionId, turnId, title),
          createSession: (body) => host.createSession(body),
          send: (sessionId, body) => outbox.send(sessionId, body),
          attachment: async (attachmentId) => {
            const response = await client.raw('getAttachment', { params: { attachmentId } });
            return toBase64(new Uint8Array(await response.arrayBuffer()));
          },
        },
        view.session,
        start,
        parts,
        rerunTitle(view.session.title, suffix),
      );
      navigate(sessionHref(id));
    };
    return {
      editable: (row) => rerunStart(store.view, row) !== null,
      retryTurnId,
      edit: (row, text) => {
        const { extra } = promptPartsOf(row);
        return run(row, { prompt: text, extra: extra.filter((block) => block.type === 'image') }, 'edited');
      },
      retry: (row) => run(row, promptPartsOf(row), 'retry'),
    };
  }, [store, host, outbox, client, retryTurnId, hasOlder]);
}
