import type { ToolCardActions } from './ToolCard.tsx';
import type { RerunActions } from './UserMessage.tsx';

/** What a transcript's rows may do: answer, open outputs, fork, edit and retry prompts. */
export interface TranscriptActions extends ToolCardActions {
  fork(turnId: string): Promise<void>;
  timedOutAfter(toolUseId: string): number | undefined;
  rerun: RerunActions;
  /** Shows or hides a continued session's Claude Code history (the `earlier` items). */
  toggleEarlier?(): void;
}

/**
 * What the rows of a Claude Code transcript may do (its own read-only view, or a continued session's history,
 * `TimelineItem.readOnly`): nothing that would act on a session. Its cards open and close, its prompts offer no
 * Edit or Retry, and a cut output says where the whole of it is.
 */
export const readOnlyActions: TranscriptActions = {
  answer: () => async () => {
    throw new Error('This transcript is read-only.');
  },
  fullResult: async () => {
    throw new Error('Outrigger shows this output cut; the whole of it is in Claude Code’s transcript file.');
  },
  fork: async () => undefined,
  timedOutAfter: () => undefined,
  rerun: { editable: () => false, retryTurnId: null, edit: async () => undefined, retry: async () => undefined },
};
