import type { ContentBlock, SdkTodo } from '@outrigger/host-api';
import type { MessageRecord, TurnRecord } from '../store/records.ts';
import type { ProjectionDraft } from './projectionDraft.ts';
import { blockText, emitTextEvent, newRow, textRow } from './rows.ts';
import { messageView } from './views.ts';

/*
 * A turn's own output: streamed text and thinking rows, compaction notices, and the agent's plan
 * (TodoWrite → the SDK task sync: *todos replace the SDK tasks*). Callers pass the turn the identity barrier let through.
 */

export function outputDelta(
  d: ProjectionDraft,
  turn: TurnRecord,
  kind: 'text' | 'thinking',
  payload: { turnId: string; messageId: string; content: string; snapshot: string },
): void {
  const existing = d.sourceRow(turn.id, payload.messageId);
  if (existing !== undefined && existing.status !== 'streaming') return;
  if (existing !== undefined && blockText(existing) === payload.snapshot) return;
  const row = textRow(d, turn.id, payload.messageId, kind, payload.snapshot, 'streaming', existing);
  emitTextEvent(d, kind, row, { delta: payload.content, final: false, interrupted: false });
  d.touch();
}

export function outputDone(
  d: ProjectionDraft,
  turn: TurnRecord,
  kind: 'text' | 'thinking',
  payload: { turnId: string; messageId: string; content: string },
  failed: boolean,
): void {
  const existing = d.sourceRow(turn.id, payload.messageId);
  const status = failed ? 'interrupted' : 'complete';
  if (existing !== undefined && existing.status === status && blockText(existing) === payload.content) return;
  const row = textRow(d, turn.id, payload.messageId, kind, payload.content, status, existing);
  emitTextEvent(d, kind, row, { delta: '', final: true, text: payload.content, interrupted: failed });
  d.touch();
}

export function compaction(d: ProjectionDraft, turn: TurnRecord, text: string, started: boolean): void {
  const open = d.messagesOfTurn(turn.id).find((row) => row.noticeKind === 'compaction' && row.status === 'streaming');
  const content: ContentBlock[] = [{ type: 'text', text }];
  const status: MessageRecord['status'] = started ? 'streaming' : 'complete';
  const row: MessageRecord =
    open === undefined
      ? newRow(d, turn.id, 'system', content, status, { noticeKind: 'compaction' })
      : { ...open, content, status, updatedAt: d.now };
  d.putMessage(row);
  d.emit({ type: 'notice', data: { session_id: d.sessionId, turnId: turn.id, message: messageView(row) } });
  d.touch();
}

export function plan(
  d: ProjectionDraft,
  turn: TurnRecord,
  entries: readonly { content: string; status: string; description?: string }[],
): void {
  const todos: SdkTodo[] = entries.map((entry) =>
    entry.description === undefined
      ? { content: entry.content, status: entry.status }
      : { content: entry.content, status: entry.status, activeForm: entry.description },
  );
  d.sdkPlan = { turnId: turn.id, todos, now: d.now };
  d.touch();
}
