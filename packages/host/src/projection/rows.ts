import type { ContentBlock, ToolResultBlock, ToolUseBlock } from '@outrigger/host-api';
import type { AttachmentRecord, MessageRecord, TurnInputBlock } from '../store/records.ts';
import type { ProjectionDraft } from './projectionDraft.ts';

/*
 * Transcript rows: new rows at the next position, text/thinking rows that fold a sidecar message (and
 * their events), prompt rows, and reading a row's blocks.
 */

export function newRow(
  d: ProjectionDraft,
  turnId: string,
  role: MessageRecord['role'],
  content: ContentBlock[],
  status: MessageRecord['status'],
  extra: Partial<MessageRecord> = {},
): MessageRecord {
  const position = d.position();
  return {
    sessionId: d.sessionId,
    id: `m-${position}`,
    turnId,
    position,
    role,
    status,
    content,
    noticeKind: null,
    steer: false,
    clientMessageId: null,
    toolUseId: null,
    sourceMessageId: null,
    createdAt: d.now,
    updatedAt: d.now,
    ...extra,
  };
}

export function textRow(
  d: ProjectionDraft,
  turnId: string,
  sourceMessageId: string,
  kind: 'text' | 'thinking',
  text: string,
  status: MessageRecord['status'],
  existing: MessageRecord | undefined,
): MessageRecord {
  const content: ContentBlock[] = [kind === 'text' ? { type: 'text', text } : { type: 'thinking', thinking: text }];
  const row: MessageRecord =
    existing === undefined
      ? newRow(d, turnId, 'assistant', content, status, { sourceMessageId })
      : { ...existing, content, status, updatedAt: d.now };
  d.putMessage(row);
  return row;
}

export function userRow(
  d: ProjectionDraft,
  turnId: string,
  prompt: string,
  input: readonly TurnInputBlock[],
  imageBytes: ReadonlyMap<string, number>,
  extra: Partial<MessageRecord>,
): MessageRecord {
  const content: ContentBlock[] = [];
  if (prompt !== '') content.push({ type: 'text', text: prompt });
  for (const block of input) {
    content.push(
      block.type === 'text'
        ? { type: 'text', text: block.text }
        : {
            type: 'image',
            attachmentId: block.attachmentId,
            mediaType: block.mediaType,
            bytes: imageBytes.get(block.attachmentId) ?? 0,
          },
    );
  }
  const row = newRow(d, turnId, 'user', content, 'complete', extra);
  d.putMessage(row);
  return row;
}

export function interruptText(d: ProjectionDraft, row: MessageRecord): void {
  d.putMessage({ ...row, status: 'interrupted', updatedAt: d.now });
  const kind = row.content[0]?.type === 'thinking' ? 'thinking' : 'text';
  emitTextEvent(d, kind, row, { delta: '', final: true, text: blockText(row), interrupted: true });
}

/** A text or thinking event for the row: a delta while it streams, its whole text once it is final. */
export function emitTextEvent(
  d: ProjectionDraft,
  kind: 'text' | 'thinking',
  row: MessageRecord,
  output: { delta: string; final: boolean; text?: string; interrupted: boolean },
): void {
  d.emit({ type: kind, data: { session_id: d.sessionId, turnId: row.turnId, messageId: row.id, ...output } });
}

export function toolBlockOf(row: MessageRecord): ToolUseBlock | undefined {
  const block = row.content[0];
  return block?.type === 'tool_use' ? block : undefined;
}

export function resultBlockOf(row: MessageRecord): ToolResultBlock | undefined {
  for (const block of row.content) if (block.type === 'tool_result') return block;
  return undefined;
}

export function blockText(row: MessageRecord): string {
  const block = row.content[0];
  if (block?.type === 'text') return block.text;
  if (block?.type === 'thinking') return block.thinking;
  return '';
}

export function imageSizes(attachments: readonly AttachmentRecord[]): Map<string, number> {
  return new Map(attachments.map((attachment) => [attachment.id, attachment.bytes.byteLength]));
}
