import type { MessageView } from '@outrigger/host-api';
import { memo } from 'react';
import { formatCost, formatDuration, formatTokens } from '../data/format.ts';
import type { TurnState } from '../data/sessionState.ts';
import type { TimelineItem } from '../data/timeline.ts';
import { ForkButton } from './ForkButton.tsx';
import { useNow } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { Markdown } from './Markdown.tsx';
import { type Answer, PromptCard } from './PromptCard.tsx';
import { RewindButton } from './RewindButton.tsx';
import { ToolCard, type ToolCardActions } from './ToolCard.tsx';
import { TurnChanges } from './TurnChanges.tsx';
import { type RerunActions, textOf, UserMessage } from './UserMessage.tsx';

export interface TranscriptActions extends ToolCardActions {
  fork(turnId: string): Promise<void>;
  timedOutAfter(toolUseId: string): number | undefined;
  rerun: RerunActions;
}

/** One row of the transcript, by kind. */
export const TranscriptItem = memo(function TranscriptItem({
  item,
  actions,
}: {
  item: TimelineItem;
  actions: TranscriptActions;
}) {
  switch (item.kind) {
    case 'user':
      return <UserMessage row={item.row} rerun={actions.rerun} />;
    case 'text':
      return <AssistantText row={item.row} />;
    case 'thinking':
      return <Thinking row={item.row} />;
    case 'notice':
      return <Notice row={item.row} />;
    case 'tool':
      return <ToolCard node={item.node} actions={actions} timedOutAfter={actions.timedOutAfter} />;
    case 'prompt':
      return <PromptCard interaction={item.interaction} answer={actions.answer(item.interaction) as Answer} />;
    case 'footer':
      return <TurnFooter turn={item.turn} fork={actions.fork} />;
  }
});

function AssistantText({ row }: { row: MessageView }) {
  return (
    <div>
      <Markdown text={textOf(row)} streaming={row.status === 'streaming'} />
      {row.status === 'interrupted' && (
        <div className="interrupted-note">
          <Icon name="alert" /> Cut off: this answer was interrupted before it finished.
        </div>
      )}
    </div>
  );
}

function Thinking({ row }: { row: MessageView }) {
  const block = row.content[0];
  const text = block?.type === 'thinking' ? block.thinking : '';
  const streaming = row.status === 'streaming';
  const now = useNow(streaming);
  const spentMs = (streaming ? now : row.updatedAt) - row.createdAt;
  const seconds = Math.floor(Math.max(0, spentMs) / 1000);
  return (
    <details className="thinking">
      <summary>
        <Icon name="brain" />
        {streaming ? `Thinking… ${seconds} s` : `Thought for ${formatDuration(spentMs)}`}
        {row.status === 'interrupted' && ' (interrupted)'}
      </summary>
      <div className="thinking-body">{text}</div>
    </details>
  );
}

function Notice({ row }: { row: MessageView }) {
  return (
    <div className={`notice${row.noticeKind === 'error' ? ' error' : ''}`} role="note">
      {textOf(row)}
    </div>
  );
}

export function turnOutcomeText(turn: TurnState): string {
  switch (turn.status) {
    case 'completed':
      return 'Completed';
    case 'canceled':
      return turn.cancelDisposition === 'pre_accept' ? 'Stopped by you before it started' : 'Stopped by you';
    case 'failed':
      return `Failed: ${turn.error?.message ?? 'unknown error'}`;
    case 'interrupted':
      return `Interrupted: ${turn.error?.message ?? 'the host stopped while it ran'}`;
    default:
      return turn.status;
  }
}

/** What to do after a failure, when the error says. */
function nextStep(turn: TurnState): string | null {
  const code = turn.error?.code ?? '';
  if (code === 'authentication_failed' || turn.error?.apiErrorStatus === 401)
    return 'Set ANTHROPIC_API_KEY (or log in to Claude Code) and restart Outrigger.';
  if (code === 'stream_stalled') return 'The model stopped answering; send the prompt again.';
  if (code === 'sidecar_exited' || code === 'host_restarted' || code === 'host_stopped')
    return 'Send a new prompt; the session resumes.';
  if (turn.error?.apiErrorStatus === 429) return 'The API is rate-limiting; wait a moment and try again.';
  return null;
}

function TurnFooter({ turn, fork }: { turn: TurnState; fork: (turnId: string) => Promise<void> }) {
  const duration =
    turn.durationMs ?? (turn.startedAt !== null && turn.endedAt !== null ? turn.endedAt - turn.startedAt : null);
  const tokensIn = turn.usage?.inputTokens;
  const tokensOut = turn.usage?.outputTokens;
  const cost = formatCost(turn.usage?.costUsd ?? null);
  const step = turn.status === 'failed' || turn.status === 'interrupted' ? nextStep(turn) : null;
  const user = turn.kind === 'user';
  return (
    <div className="turn-end">
      {user && <TurnChanges turnId={turn.id} running={false} />}
      <div className="turn-footer">
        <span className={`outcome ${turn.status}`}>{turnOutcomeText(turn)}</span>
        {step !== null && <span>{step}</span>}
        {duration !== null && <span>{formatDuration(duration)}</span>}
        {tokensIn != null && tokensOut != null && (
          <span>
            {formatTokens(tokensIn)} in · {formatTokens(tokensOut)} out
          </span>
        )}
        {cost !== null && <span>{cost}</span>}
        <span className="spacer" />
        {user && <RewindButton turnId={turn.id} />}
        <ForkButton turnId={turn.id} fork={fork} />
      </div>
    </div>
  );
}
