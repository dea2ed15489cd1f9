import {
  type ContentBlock,
  hostLimits,
  type MessagesPage,
  type MessageView,
  type QueuedPrompt,
  type SessionDetail,
  type SessionSnapshot,
  type SessionSummary,
  type ToolResultBlock,
  type TurnView,
} from '@outrigger/host-api';
import type { MessageRecordPage, SessionSnapshotRecords } from '../store/hostStore.ts';
import type { MessageRecord, SessionRecord, TurnRecord } from '../store/records.ts';
import { terminalCommand } from './terminalCommand.ts';

/*
 * Stored rows → the contract's views. Pure: the HTTP reads (through the runtime's `HostViews` port)
 * and the projector's event payloads use the same functions, so a snapshot and the stream agree.
 */

export function sessionSummary(session: SessionRecord): SessionSummary {
  return {
    id: session.id,
    title: session.title,
    cwd: session.cwd,
    status: session.status,
    closed: session.closed,
    archivedAt: session.archivedAt,
    needsInputCount: session.needsInputCount,
    runningTurnId: session.runningTurnId,
    runningTurnStartedAt: session.runningTurnStartedAt,
    queuePaused: session.queuePaused,
    lastError: session.lastError,
    model: session.settings.model,
    permissionMode: session.settings.permissionMode,
    forkedFrom: session.forkedFrom === null ? null : { ...session.forkedFrom },
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    lastActivityAt: session.lastActivityAt,
  };
}

/**
 * Where the host's Claude Code keeps its sessions, for the command that continues one in a terminal: `configDir`
 * is named in the command only when it is not the default one a terminal's `claude` uses.
 */
export interface TerminalContext {
  readonly configDir?: string;
}

function sessionDetail(session: SessionRecord, terminal: TerminalContext = {}): SessionDetail {
  return {
    ...sessionSummary(session),
    providerSessionId: session.providerSessionId,
    settings: { ...session.settings },
    effectiveModel: session.effectiveModel,
    configOptions: [...session.configOptions],
    usage: session.usage,
    worktree: session.worktree === null ? null : { ...session.worktree },
    terminalCommand: terminalCommand({
      cwd: session.cwd,
      providerSessionId: session.providerSessionId,
      configDir: terminal.configDir,
    }),
    continuedFrom: session.continuedFrom === null ? null : { ...session.continuedFrom },
  };
}

function turnView(turn: TurnRecord): TurnView {
  return {
    id: turn.id,
    session_id: turn.sessionId,
    kind: turn.kind,
    status: turn.status,
    prompt: turn.prompt,
    clientMessageId: turn.clientMessageId,
    providerTurnId: turn.providerTurnId,
    stopReason: turn.stopReason,
    error: turn.error,
    cancelDisposition: turn.cancelDisposition,
    usage: turn.usage,
    createdAt: turn.createdAt,
    startedAt: turn.startedAt,
    endedAt: turn.endedAt,
  };
}

/** A tool result as pages, snapshots and SSE payloads carry it: cut to the preview length. */
export function previewToolResult(result: ToolResultBlock): ToolResultBlock {
  if (result.content.length <= hostLimits.toolResultPreviewChars) return result;
  return { ...result, content: result.content.slice(0, hostLimits.toolResultPreviewChars), truncated: true };
}

function previewBlock(block: ContentBlock): ContentBlock {
  return block.type === 'tool_result' ? previewToolResult(block) : block;
}

export function messageView(message: MessageRecord): MessageView {
  return {
    id: message.id,
    session_id: message.sessionId,
    turnId: message.turnId,
    position: message.position,
    role: message.role,
    status: message.status,
    content: message.content.map(previewBlock),
    noticeKind: message.noticeKind,
    steer: message.steer,
    clientMessageId: message.clientMessageId,
    createdAt: message.createdAt,
    updatedAt: message.updatedAt,
  };
}

/** The whole result of a tool row (`GET …/tool-results/:id`), or undefined while it has none. */
function toolResultOf(message: MessageRecord): ToolResultBlock | undefined {
  for (const block of message.content) if (block.type === 'tool_result') return block;
  return undefined;
}

export function queuedPrompt(turn: TurnRecord): QueuedPrompt {
  return {
    turnId: turn.id,
    prompt: turn.prompt ?? '',
    clientMessageId: turn.clientMessageId,
    imageCount: turn.input.filter((block) => block.type === 'image').length,
    createdAt: turn.createdAt,
    paused: turn.paused,
  };
}

function messagesPage(page: MessageRecordPage, turns: readonly TurnRecord[]): MessagesPage {
  return { messages: page.messages.map(messageView), turns: turns.map(turnView), hasMore: page.hasMore };
}

export function sessionSnapshot(records: SessionSnapshotRecords, terminal: TerminalContext = {}): SessionSnapshot {
  const running = records.liveTurns.filter((turn) => turn.status === 'running');
  const openTurn = running.find((turn) => turn.kind === 'user') ?? null;
  return {
    session: sessionDetail(records.session, terminal),
    lastSeq: records.lastSeq,
    openTurn: openTurn === null ? null : turnView(openTurn),
    pendingInteractions: [...records.pendingInteractions],
    queuedPrompts: records.liveTurns.filter((turn) => turn.status === 'queued').map(queuedPrompt),
    backgroundTasks: [...records.session.backgroundTasks],
    tasks: [...records.tasks],
    messages: messagesPage(records.page, records.pageTurns),
  };
}

/** The runtime's `HostViews` port, for a host whose Claude Code keeps its sessions as `terminal` says. */
export function hostViewsFor(terminal: TerminalContext) {
  return {
    summary: sessionSummary,
    detail: (session: SessionRecord) => sessionDetail(session, terminal),
    snapshot: (records: SessionSnapshotRecords) => sessionSnapshot(records, terminal),
    messagesPage,
    toolResult: toolResultOf,
  } as const;
}

/** The views of a host whose Claude Code uses the default config dir. */
export const hostViews = hostViewsFor({});
