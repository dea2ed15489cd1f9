import type { ClientCapabilities, NoticeSeverity, SessionUpdate } from '@agentclientprotocol/sdk';
import type { MessageView, NoticeKind } from '@outrigger/host-api';

/*
 * A host notice row (compaction, a retried partial answer, an error, the transcript grown outside Outrigger) as
 * what this client can show: ACP's `compaction_update` or `notice` when it advertised them (ACP forbids them
 * otherwise), else a plain agent message.
 */

/** How a notice may reach this client. */
export interface NoticeRoute {
  /** `session.compaction` advertised: compactions are entities of their own. */
  readonly compaction: boolean;
  /** `session.notices` advertised: live notices the client presents itself. */
  readonly notices: boolean;
}

export function noticeRouteOf(capabilities: ClientCapabilities | undefined): NoticeRoute {
  // Omitted and null both mean "not supported"; `{}` advertises it.
  return {
    compaction: capabilities?.session?.compaction != null,
    notices: capabilities?.session?.notices != null,
  };
}

/** The notice's text: a system row holds one text block. */
export function noticeText(message: MessageView): string {
  return message.content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n\n')
    .trim();
}

/** The sidecar writes a failed compaction as "Compacting failed[: reason]"; the row has no status of its own for it. */
function compactionFailed(text: string): boolean {
  return text.startsWith('Compacting failed');
}

/** Only a compaction, for a client that knows them: one entity, patched in place as it goes. */
export function compactionUpdateOf(message: MessageView): SessionUpdate {
  const text = noticeText(message);
  if (message.status === 'streaming') {
    return { sessionUpdate: 'compaction_update', compactionId: message.id, status: 'in_progress' };
  }
  return compactionFailed(text)
    ? { sessionUpdate: 'compaction_update', compactionId: message.id, status: 'failed', error: text }
    : { sessionUpdate: 'compaction_update', compactionId: message.id, status: 'completed' };
}

const kindTitles: Readonly<Record<NoticeKind, string>> = {
  compaction: 'Compacting the conversation',
  partial_answer: 'Claude Code retried a cut-off answer',
  error: 'Something went wrong',
  outside_changes: 'The conversation went on outside Outrigger',
};

/** A live ACP notice: its first paragraph is the title (it must stand alone), the rest the description. */
export function liveNoticeOf(message: MessageView): SessionUpdate {
  const kind = message.noticeKind ?? 'error';
  const text = noticeText(message);
  const [first = '', ...rest] = text.split('\n\n');
  const title = first.trim() === '' ? kindTitles[kind] : first.trim();
  const description = rest.join('\n\n').trim();
  const update: SessionUpdate = { sessionUpdate: 'notice', severity: severityOf(kind, text), title };
  if (description !== '') update.description = description;
  return update;
}

function severityOf(kind: NoticeKind, text: string): NoticeSeverity {
  if (kind === 'error') return 'error';
  if (kind === 'partial_answer' || (kind === 'compaction' && compactionFailed(text))) return 'warning';
  return 'info';
}

/**
 * For a client that knows neither: an agent message of its own (`messageId`), quoted, so it reads as a note
 * between the answers rather than as Claude's words; blank lines around it keep it off the neighbouring text.
 */
export function plainNoticeOf(message: MessageView, messageId: string): SessionUpdate | undefined {
  const text = noticeText(message);
  if (text === '') return undefined;
  const quoted = text
    .split('\n')
    .map((line) => (line.trim() === '' ? '>' : `> ${line}`))
    .join('\n');
  return { sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: `\n\n${quoted}\n\n` } };
}
