import {
  type CreateSessionBody,
  type ImageMediaType,
  type MessageView,
  type PostTurnBody,
  type SessionDetail,
  type SessionSummary,
  terminalTurnStatuses,
} from '@outrigger/host-api';
import { type ConversationStart, userTurnsInOrder } from './rewindPlan.ts';
import type { SessionViewState } from './sessionState.ts';

/*
 * Edit a sent prompt, and Retry the last turn: both run a prompt again in a NEW session that starts from
 * just before the prompt's turn (a fork at the user turn before it, or a fresh session in the same folder
 * and settings before the first), and leave the original session as it was, its answer included. A retry
 * in place would keep the old answer on screen, but the model would read it as context and the turn would
 * not be the same question asked again.
 *
 * The UI forks, then sends the prompt into the fork through the outbox, rather than asking the fork route
 * to carry a first prompt: the outbox already makes a send exactly-once (one `clientMessageId`, retried on
 * a network error or a 5xx, kept across a reload, a refusal shown with Retry and Edit in the new session),
 * the first-prompt case needs `createSession` + send anyway, and a fork that succeeded while its send failed
 * loses nothing (the prompt waits in the fork as "Not sent").
 */

const ended: ReadonlySet<string> = new Set(terminalTurnStatuses);

/** What a prompt is sent as: its text, and what came with it (more text blocks, images). */
export interface PromptParts {
  prompt: string;
  /** The blocks after the prompt's text; images by the attachment id the host stored them under. */
  extra: ({ type: 'text'; text: string } | { type: 'image'; attachmentId: string; mediaType: ImageMediaType })[];
}

/** A user message as it was sent: the first text block is the prompt. */
export function promptPartsOf(row: MessageView): PromptParts {
  const [first, ...rest] = row.content;
  const blocks = first?.type === 'text' ? rest : row.content;
  const extra: PromptParts['extra'] = [];
  for (const block of blocks) {
    if (block.type === 'text') extra.push({ type: 'text', text: block.text });
    else if (block.type === 'image')
      extra.push({ type: 'image', attachmentId: block.attachmentId, mediaType: block.mediaType });
  }
  return { prompt: first?.type === 'text' ? first.text : '', extra };
}

/**
 * Where a re-run of this user message starts; null when it cannot be re-run from here (a steer, a
 * prompt still queued, or the turn before it is in rows not loaded yet).
 */
export function rerunStart(view: SessionViewState, row: MessageView): ConversationStart | null {
  if (row.role !== 'user' || row.steer) return null;
  const turn = view.turns[row.turnId];
  if (turn === undefined || turn.kind !== 'user' || turn.status === 'queued') return null;
  return startBefore(view, row.turnId);
}

/** The user turns in order, once per `turns` object: every user row asks, and a delta keeps the object. */
const orders = new WeakMap<SessionViewState['turns'], string[]>();

/** `conversationBefore`, on the order kept for this view's turns. */
function startBefore(view: SessionViewState, turnId: string): ConversationStart | null {
  let order = orders.get(view.turns);
  if (order === undefined) {
    order = userTurnsInOrder(view);
    orders.set(view.turns, order);
  }
  const index = order.indexOf(turnId);
  if (index === -1) return null;
  if (index > 0) return { kind: 'fork', turnId: order[index - 1]! };
  return view.hasOlder ? null : { kind: 'new' };
}

/** The turn Retry re-runs: the last user turn, once it ended and nothing runs or waits after it. */
export function retryableTurnId(view: SessionViewState): string | null {
  if (view.session === null || view.session.runningTurnId !== null || view.queuedPrompts.length > 0) return null;
  const last = userTurnsInOrder(view).at(-1);
  const turn = last === undefined ? undefined : view.turns[last];
  if (turn === undefined || !ended.has(turn.status)) return null;
  return startBefore(view, turn.id) === null ? null : turn.id;
}

export interface RerunServices {
  fork(sessionId: string, turnId: string, title?: string): Promise<SessionSummary>;
  createSession(body: CreateSessionBody): Promise<SessionSummary>;
  send(sessionId: string, body: Omit<PostTurnBody, 'clientMessageId'>): unknown;
  /** An attachment's bytes as base64 (`GET /api/attachments/:id`), to send an image again. */
  attachment(attachmentId: string): Promise<string>;
}

/** The session a conversation from just before a turn lives in: a fork, or a new one with the same settings. */
export async function startConversation(
  services: Pick<RerunServices, 'fork' | 'createSession'>,
  session: SessionDetail,
  start: ConversationStart,
  title: string,
): Promise<string> {
  if (start.kind === 'fork') return (await services.fork(session.id, start.turnId, title)).id;
  const { settings } = session;
  const created = await services.createSession({
    cwd: session.cwd,
    ...(settings.model !== 'default' ? { model: settings.model } : {}),
    permissionMode: settings.permissionMode,
    planMode: settings.planMode,
    ...(settings.effort !== null ? { effort: settings.effort } : {}),
    title,
  });
  return created.id;
}

/**
 * Runs `parts` in a new session from just before `start`; returns its id. The images are read back before
 * anything is created, so a failure there leaves no empty session behind.
 */
export async function rerunInNewSession(
  services: RerunServices,
  session: SessionDetail,
  start: ConversationStart,
  parts: PromptParts,
  title: string,
): Promise<string> {
  const content: NonNullable<PostTurnBody['content']> = [];
  for (const block of parts.extra) {
    if (block.type === 'text') content.push(block);
    else
      content.push({
        type: 'image',
        source: { type: 'base64', media_type: block.mediaType, data: await services.attachment(block.attachmentId) },
      });
  }
  const id = await startConversation(services, session, start, title);
  services.send(id, { prompt: parts.prompt, ...(content.length > 0 ? { content } : {}) });
  return id;
}

/** A re-run's title: the source's, with one `(edited)` or `(retry)` at its end, never a stack of them. */
export function rerunTitle(title: string, suffix: 'edited' | 'retry'): string {
  const base = title.replace(/(?:\s\((?:edited|retry|fork)\))+$/, '');
  return `${base === '' ? title : base} (${suffix})`;
}
