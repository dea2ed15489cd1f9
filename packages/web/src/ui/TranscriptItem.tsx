import type { MessageView } from '@outrigger/host-api';
import { memo } from 'react';
import { formatCost, formatDuration, formatTokens } from '../data/format.ts';
import { outsideChangesOf } from '../data/outsideChanges.ts';
import type { TurnState } from '../data/sessionState.ts';
import type { TimelineItem } from '../data/timeline.ts';
import { ForkButton } from './ForkButton.tsx';
import './history.css';
import { useNow } from './hooks.ts';
import { Icon } from './Icon.tsx';
import { Markdown } from './Markdown.tsx';
import { type Answer, PromptCard } from './PromptCard.tsx';
import { RewindButton } from './RewindButton.tsx';
import { ToolCard } from './ToolCard.tsx';
import { TurnChanges } from './TurnChanges.tsx';
import { readOnlyActions, type TranscriptActions } from './transcriptActions.ts';
import { textOf, UserMessage } from './UserMessage.tsx';

/** One row of the transcript, by kind; a read-only row gets `readOnlyActions`, whatever the transcript's are. */
export const TranscriptItem = memo(function TranscriptItem({
  item,
  actions: transcriptActions,
}: {
  item: TimelineItem;
  actions: TranscriptActions;
}) {
  const actions = item.readOnly === true ? readOnlyActions : transcriptActions;
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
    case 'earlier':
      return <EarlierMarker edge={item.edge} open={item.open} onToggle={actions.toggleEarlier} />;
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
  if (row.noticeKind === 'outside_changes') return <OutsideChangesCard row={row} />;
  return (
    <div className={`notice${row.noticeKind === 'error' ? ' error' : ''}`} role="note">
      {textOf(row)}
    </div>
  );
}

/** Messages the session got outside Outrigger (a terminal), shown as they came, before the next turn. */
function OutsideChangesCard({ row }: { row: MessageView }) {
  const { lead, omitted, messages } = outsideChangesOf(textOf(row));
  return (
    <section className="outside-changes" aria-label="Continued outside Outrigger">
      <h3 className="outside-head">
        <Icon name="terminal" /> Continued outside Outrigger
      </h3>
      <p className="small muted">{lead}</p>
      {omitted !== null && <p className="small muted">… {omitted}</p>}
      <ol className="outside-messages">
        {messages.map((message, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the notice's text is fixed once written
          <li key={index} data-role={message.role}>
            {message.role === 'user' ? (
              <div className="bubble">{message.text}</div>
            ) : (
              <Markdown text={message.text} streaming={false} />
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Where a continued session's Claude Code history starts (a fold) and where Outrigger took over. */
function EarlierMarker({ edge, open, onToggle }: { edge: 'start' | 'end'; open: boolean; onToggle?: () => void }) {
  if (edge === 'end')
    return (
      <div className="notice earlier-end" role="note">
        Continued in Outrigger
      </div>
    );
  return (
    <div className="earlier-start">
      <Icon name="history" />
      <span className="earlier-label">
        <strong>Earlier, in Claude Code</strong>
        <span className="small muted">
          {open ? 'Read from its transcript, read-only.' : 'This session continues a Claude Code session.'}
        </span>
      </span>
      <button type="button" className="btn btn-small" aria-expanded={open} onClick={onToggle}>
        {open ? 'Hide' : 'Show'}
        <span className="sr-only"> the earlier conversation</span>
      </button>
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
