import {
  buildToolCallPayload,
  createToolCallState,
  type ToolCallState,
  toolResultView,
} from '@outrigger/claude-sdk-sidecar';
import {
  type AgentTask,
  type ContentBlock,
  type InteractionAnswer,
  type MessageView,
  type NoticeKind,
  type ToolDecision,
  type ToolUseBlock,
  toolDecisionOf,
} from '@outrigger/host-api';
import type { ToolCall } from '@outrigger/protocol';
import { outcomeOfResult, synthesizedResult, toolCardOf, toolResultFrom } from '../projection/toolRows.ts';
import { previewToolResult } from '../projection/views.ts';
import type { TranscriptMessage } from './transcriptMessages.ts';
import { rawBody } from './transcriptScan.ts';

/*
 * A transcript's messages → the rows a live session shows of the same conversation. Each tool call goes
 * through the live projection's own code: the sidecar's `buildToolCallPayload` makes the protocol ToolCall it
 * would have emitted, and the host's tool-row functions make the card of it (call type, locations, the file
 * change with Claude Code's structured patch, the result text and its cut, the outcome). A subagent's calls
 * come from its own transcript, under their Agent call, merged in by time as they streamed live; its prose
 * stays in its transcript, as it does live.
 */

type Json = Record<string, unknown>;

const record = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What the live compaction notice says once it is done (the sidecar's `compact_completed`). */
const COMPACTION_TEXT = 'Compacting completed.';
const NO_RESULT_REASON = 'the transcript holds no result for it';
/** User text Claude Code writes itself when a turn is stopped; the live session shows no row for it. */
const interruptionMarker = /^\[Request interrupted by user( for tool use)?\]\s*$/;

interface DraftRow {
  readonly id: string;
  /** Undefined on a subagent's rows: they take their Agent call's turn when they are placed. */
  turnId: string | undefined;
  readonly role: MessageView['role'];
  content: ContentBlock[];
  readonly noticeKind: NoticeKind | null;
  readonly steer: boolean;
  readonly createdAt: number;
  updatedAt: number;
  /** The Agent call a subagent's row belongs under. */
  readonly underToolUseId: string | null;
}

interface OpenCall {
  readonly row: DraftRow;
  readonly state: ToolCallState;
  readonly turnId: string;
  readonly startedAt: number;
  /** The result's structured output (`toolUseResult`), for the Agent card. */
  toolResponse: unknown;
  failed: boolean;
  ended: boolean;
}

/** What a `<task-notification>` said about the task a call launched (an Agent, a background command). */
interface TaskReport {
  readonly status: string | undefined;
  readonly summary: string | undefined;
  readonly usage: Json | undefined;
  readonly at: number;
}

export interface TranscriptRows {
  readonly rows: MessageView[];
  /** Results cut to the preview length. */
  readonly outputsCut: number;
  /** Content blocks of a kind this reader does not know, skipped. */
  readonly unknownBlocks: number;
}

export class TranscriptRowBuilder {
  readonly #sessionId: string;
  readonly #rootRows: DraftRow[] = [];
  readonly #subagentRows: DraftRow[] = [];
  readonly #calls = new Map<string, OpenCall>();
  readonly #reports = new Map<string, TaskReport>();
  #turnId: string | undefined;
  #lastTime: number;
  #outputsCut = 0;
  #unknownBlocks = 0;

  /** `fallbackTime`: for entries without a readable timestamp before any that has one (the file's mtime). */
  constructor(sessionId: string, fallbackTime: number) {
    this.#sessionId = sessionId;
    this.#lastTime = fallbackTime;
  }

  /** The main conversation, in order. */
  addConversation(messages: readonly TranscriptMessage[]): void {
    for (const message of messages) this.#conversationMessage(message);
  }

  /** A subagent's conversation: only its tool calls show, under `agentToolUseId` (as they stream live). */
  addSubagent(messages: readonly TranscriptMessage[], agentToolUseId: string): void {
    for (const message of messages) {
      const at = this.#time(message);
      const content = message.message?.content;
      if (!Array.isArray(content)) continue;
      const parent = message.parentToolUseId ?? agentToolUseId;
      if (message.type === 'assistant') {
        content.forEach((item, index) => {
          const block = record(item);
          if (block !== undefined && isToolUse(block.type)) {
            this.#toolUse(block, `${message.uuid}:${index}`, parent, '', at, this.#subagentRows);
          }
        });
      } else if (message.type === 'user') {
        this.#toolResults(content, message, at);
      }
    }
  }

  finish(): TranscriptRows {
    for (const call of this.#calls.values()) if (!call.ended) this.#endWithoutResult(call);
    for (const call of this.#calls.values()) this.#finishTask(call);
    return {
      rows: this.#placed().map((row, position) => ({
        id: row.id,
        session_id: this.#sessionId,
        turnId: row.turnId ?? this.#sessionId,
        position,
        role: row.role,
        status: 'complete',
        content: row.content,
        noticeKind: row.noticeKind,
        steer: row.steer,
        clientMessageId: null,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      })),
      outputsCut: this.#outputsCut,
      unknownBlocks: this.#unknownBlocks,
    };
  }

  /** The agent id each Agent call launched, as its result names it → the call (to find its subagent's calls). */
  launchedAgents(): Map<string, string> {
    const launched = new Map<string, string>();
    for (const call of this.#calls.values()) {
      const agentId = str(record(call.toolResponse)?.agentId);
      if (call.state.callType === 'subagent' && agentId !== undefined) launched.set(agentId, call.state.id);
    }
    return launched;
  }

  // ─── the main conversation ───────────────────────────────────────────────────────────────────

  #conversationMessage(message: TranscriptMessage): void {
    const at = this.#time(message);
    if (message.type === 'system') {
      if (message.raw?.subtype === 'compact_boundary') {
        this.#notice(message.uuid, 'compaction', COMPACTION_TEXT, at);
      }
      return;
    }
    if (message.compactSummary || message.meta) return;
    const content = message.message?.content;
    if (message.type === 'assistant') {
      if (message.raw?.isApiErrorMessage === true) {
        this.#notice(message.uuid, 'error', textOf(content), at);
        return;
      }
      if (!Array.isArray(content)) return;
      content.forEach((item, index) => {
        this.#assistantBlock(record(item), `${message.uuid}:${index}`, at);
      });
      return;
    }
    if (typeof content === 'string') {
      this.#userText(message, content, at);
      return;
    }
    if (!Array.isArray(content)) return;
    this.#toolResults(content, message, at);
    const prompt: ContentBlock[] = [];
    for (const item of content) {
      const block = record(item);
      if (block === undefined || block.type === 'tool_result') continue;
      if (block.type === 'text') {
        const text = str(block.text) ?? '';
        if (text.trim() !== '' && !interruptionMarker.test(text) && !text.startsWith('<system-reminder>')) {
          prompt.push({ type: 'text', text });
        }
      } else if (block.type === 'image' || block.type === 'document') {
        prompt.push({ type: 'text', text: placeholderOf(block) });
      } else {
        this.#unknownBlocks += 1;
      }
    }
    if (prompt.length > 0) this.#prompt(message, prompt, at);
  }

  #userText(message: TranscriptMessage, content: string, at: number): void {
    const notification = taskNotificationOf(content);
    if (notification !== undefined) {
      // A background task ended; Claude Code answers it in a turn of its own, with no prompt row (as live).
      this.#turnId = message.uuid;
      if (notification.toolUseId !== undefined) {
        this.#reports.set(notification.toolUseId, {
          status: notification.status,
          summary: notification.result ?? notification.summary,
          usage: notification.usage,
          at,
        });
      }
      return;
    }
    const text = promptTextOf(content);
    if (text === undefined) return;
    this.#prompt(message, [{ type: 'text', text }], at);
  }

  #prompt(message: TranscriptMessage, content: ContentBlock[], at: number): void {
    // A prompt Claude Code folded into the running turn is a steer of that turn, as live.
    const steer = message.queued && this.#turnId !== undefined;
    if (!steer) this.#turnId = message.uuid;
    this.#rootRows.push(this.#row(message.uuid, 'user', content, at, { steer }));
  }

  #assistantBlock(block: Json | undefined, id: string, at: number): void {
    if (block === undefined) return;
    if (block.type === 'text' || block.type === 'thinking') {
      const text = str(block.type === 'text' ? block.text : block.thinking) ?? '';
      if (text === '') return;
      const content: ContentBlock =
        block.type === 'text' ? { type: 'text', text } : { type: 'thinking', thinking: text };
      this.#rootRows.push(this.#row(id, 'assistant', [content], at));
    } else if (isToolUse(block.type)) {
      this.#toolUse(block, id, null, this.#turnId ?? id, at, this.#rootRows);
    } else if (block.type !== 'redacted_thinking' && !String(block.type).endsWith('_tool_result')) {
      // Redacted thinking and a server tool's own result block show nothing live either.
      this.#unknownBlocks += 1;
    }
  }

  #notice(id: string, kind: NoticeKind, text: string, at: number): void {
    this.#turnId ??= id;
    this.#rootRows.push(this.#row(id, 'system', [{ type: 'text', text }], at, { noticeKind: kind }));
  }

  // ─── tool calls ──────────────────────────────────────────────────────────────────────────────

  #toolUse(block: Json, rowId: string, parent: string | null, turnId: string, at: number, into: DraftRow[]): void {
    const id = str(block.id);
    if (id === undefined || this.#calls.has(id)) return;
    const state = createToolCallState(
      id,
      str(block.name) ?? '',
      record(block.input) ?? {},
      parent ?? undefined,
      turnId,
    );
    const call = buildToolCallPayload(turnId, state, 'streaming');
    const row = this.#row(rowId, 'assistant', [toolBlock(call, { startedAt: at })], at, { underToolUseId: parent });
    into.push(row);
    this.#calls.set(id, { row, state, turnId, startedAt: at, toolResponse: undefined, failed: false, ended: false });
  }

  #toolResults(content: readonly unknown[], message: TranscriptMessage, at: number): void {
    const results = content.filter((item) => record(item)?.type === 'tool_result');
    // `toolUseResult` belongs to the entry, so it is only attributable when the entry holds one result (as live).
    const toolResponse = results.length === 1 ? rawBody(message.raw)?.toolUseResult : undefined;
    for (const item of results) this.#toolResult(record(item)!, toolResponse, at);
  }

  #toolResult(block: Json, toolResponse: unknown, at: number): void {
    const open = this.#calls.get(str(block.tool_use_id) ?? '');
    if (open === undefined || open.ended) return;
    const view = toolResultView(block, toolResponse);
    const failed = view.isError;
    const { state } = open;
    const background =
      state.background && !failed && state.parentToolUseId === undefined
        ? { backgroundProcess: backgroundProcessOf(toolResponse) }
        : {};
    const call = buildToolCallPayload(open.turnId, state, failed ? 'failed' : 'completed', view, {
      resultSource: 'canonical',
      ...background,
    });
    const result = toolResultFrom(call, failed);
    const decision = decisionOf(state, toolResponse, failed, at);
    const outcome = outcomeOfResult(failed, result, { previous: null, decision, turnCanceled: false });
    const preview = previewToolResult(result);
    if (preview.truncated) this.#outputsCut += 1;
    const tool = toolBlock(call, {
      status: failed ? 'failed' : 'completed',
      startedAt: open.startedAt,
      endedAt: at,
      outcome,
      decision,
      // A background launch's acknowledgement is its live output too.
      output: state.background && !failed ? preview.content : null,
    });
    open.row.content = [tool, preview];
    open.row.updatedAt = at;
    open.toolResponse = toolResponse;
    open.failed = failed;
    open.ended = true;
  }

  /** A call whose result the transcript does not hold (the session ended first): it ended, without a result. */
  #endWithoutResult(open: OpenCall): void {
    const tool = toolBlockOf(open.row);
    if (tool === undefined) return;
    const result = synthesizedResult(tool.id, NO_RESULT_REASON);
    open.row.content = [{ ...tool, status: 'failed', endedAt: this.#lastTime, outcome: 'stopped' }, result];
    open.failed = true;
    open.ended = true;
  }

  /** What the Agent card says of its task, and how a background command ended, once everything is read. */
  #finishTask(open: OpenCall): void {
    const tool = toolBlockOf(open.row);
    if (tool === undefined) return;
    const report = this.#reports.get(tool.id);
    if (tool.background !== null) {
      this.#replaceTool(open.row, { ...tool, background: { ...tool.background, status: report?.status ?? 'stopped' } });
      return;
    }
    if (tool.callType !== 'subagent') return;
    const agentTask = this.#agentTask(open, tool, report);
    if (agentTask !== null) this.#replaceTool(open.row, { ...tool, agentTask });
  }

  #agentTask(open: OpenCall, tool: ToolUseBlock, report: TaskReport | undefined): AgentTask | null {
    const response = record(open.toolResponse);
    const agentId = str(response?.agentId) ?? null;
    if (agentId === null && report === undefined) return null; // never launched (live: no task either)
    const ranSync = response?.status === 'completed';
    const status = report?.status ?? (ranSync ? 'completed' : open.failed ? 'failed' : 'stopped');
    const lastTool = this.#subagentRows.filter((row) => row.underToolUseId === tool.id).at(-1);
    return {
      taskId: agentId,
      agentId,
      status,
      description: str(tool.input.description) ?? str(response?.description) ?? null,
      summary: report?.summary ?? (ranSync ? textOf(response?.content) || null : null),
      lastToolName: (lastTool === undefined ? undefined : toolBlockOf(lastTool)?.name) ?? null,
      usage: report?.usage ?? (ranSync ? syncUsageOf(response) : null),
      updatedAt: report?.at ?? open.row.updatedAt,
    };
  }

  #replaceTool(row: DraftRow, tool: ToolUseBlock): void {
    row.content = row.content.map((block) => (block.type === 'tool_use' ? tool : block));
  }

  // ─── rows ────────────────────────────────────────────────────────────────────────────────────

  #row(
    id: string,
    role: MessageView['role'],
    content: ContentBlock[],
    at: number,
    extra: { steer?: boolean; noticeKind?: NoticeKind; underToolUseId?: string | null } = {},
  ): DraftRow {
    const underToolUseId = extra.underToolUseId ?? null;
    return {
      id,
      turnId: underToolUseId === null ? (this.#turnId ?? id) : undefined,
      role,
      content,
      noticeKind: extra.noticeKind ?? null,
      steer: extra.steer ?? false,
      createdAt: at,
      updatedAt: at,
      underToolUseId,
    };
  }

  /**
   * The main conversation's rows with each subagent row placed as it appeared live: by its time, never
   * before the Agent call it runs under; it takes that call's turn.
   */
  #placed(): DraftRow[] {
    const placedCalls = new Map<string, DraftRow>();
    const out: DraftRow[] = [];
    const place = (row: DraftRow): void => {
      if (row.underToolUseId !== null) row.turnId = placedCalls.get(row.underToolUseId)?.turnId;
      out.push(row);
      const tool = toolBlockOf(row);
      if (tool !== undefined) placedCalls.set(tool.id, row);
    };
    const waiting = [...this.#subagentRows].sort((a, b) => a.createdAt - b.createdAt);
    const placeReady = (before: number): void => {
      for (let progress = true; progress; ) {
        progress = false;
        for (let i = 0; i < waiting.length; i += 1) {
          const row = waiting[i]!;
          if (row.createdAt > before) break;
          if (!placedCalls.has(row.underToolUseId!)) continue;
          waiting.splice(i, 1);
          place(row);
          progress = true;
          break;
        }
      }
    };
    for (const row of this.#rootRows) {
      placeReady(row.createdAt - 1);
      place(row);
    }
    placeReady(Number.POSITIVE_INFINITY);
    // A subagent whose Agent call is not in the transcript: its calls still show, at the end.
    for (const row of waiting) place(row);
    return out;
  }

  #time(message: TranscriptMessage): number {
    const parsed = message.timestamp === undefined ? Number.NaN : Date.parse(message.timestamp);
    if (Number.isFinite(parsed)) this.#lastTime = parsed;
    return this.#lastTime;
  }
}

function isToolUse(type: unknown): boolean {
  return type === 'tool_use' || type === 'server_tool_use' || type === 'mcp_tool_use';
}

function toolBlockOf(row: DraftRow): ToolUseBlock | undefined {
  const block = row.content[0];
  return block?.type === 'tool_use' ? block : undefined;
}

/** The card of a protocol ToolCall, by the live projection's own rule (`toolCardOf`); nobody decided anything yet. */
function toolBlock(call: ToolCall, fields: Partial<ToolUseBlock> & { startedAt: number }): ToolUseBlock {
  return { ...toolCardOf(call, undefined, { startedAt: fields.startedAt, decision: () => null }), ...fields };
}

function backgroundProcessOf(toolResponse: unknown): { taskId?: string; status: string } {
  const taskId = str(record(toolResponse)?.backgroundTaskId);
  return taskId === undefined ? { status: 'running' } : { taskId, status: 'running' };
}

/**
 * What the person decided on a question or a plan, from Claude Code's result (the live session stores the
 * answer it sent; a transcript keeps the answers by question text in `toolUseResult`).
 */
function decisionOf(state: ToolCallState, toolResponse: unknown, failed: boolean, at: number): ToolDecision | null {
  if (state.name === 'AskUserQuestion') {
    const asked = Array.isArray(state.input.questions) ? state.input.questions : [];
    const questions: Json[] = asked.map((item, index) => ({ ...record(item), id: `question-${index}` }));
    const answers = record(record(toolResponse)?.answers) ?? {};
    const notes = record(record(toolResponse)?.annotations) ?? {};
    const answersByQuestionId: Json = {};
    const annotations: Json = {};
    for (const question of questions) {
      const text = str(question.question);
      if (text === undefined) continue;
      const id = String(question.id);
      if (answers[text] !== undefined) answersByQuestionId[id] = answers[text];
      const note = str(record(notes[text])?.notes);
      if (note !== undefined) annotations[id] = { notes: note };
    }
    const answer: InteractionAnswer = failed
      ? { action: 'reject', optionId: 'reject', payload: {} }
      : { action: 'allow', optionId: 'allow', payload: { answersByQuestionId, annotations } };
    const interaction = {
      requestId: state.id,
      kind: 'question' as const,
      input: { ...state.input, questions },
      options: [],
      resolution: 'answered' as const,
    };
    return toolDecisionOf(interaction, answer, at);
  }
  if (state.name === 'ExitPlanMode') {
    const answer: InteractionAnswer = failed
      ? { action: 'reject', optionId: 'plan', payload: {} }
      : { action: 'allow', optionId: '', payload: {} };
    const interaction = {
      requestId: state.id,
      kind: 'plan' as const,
      input: state.input,
      options: [],
      resolution: 'answered' as const,
    };
    return toolDecisionOf(interaction, answer, at);
  }
  return null;
}

/** The text of string content, or of the text blocks of array content. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((item) => {
      const block = record(item);
      return block?.type === 'text' && typeof block.text === 'string' ? [block.text] : [];
    })
    .join('\n');
}

/** A synchronous Agent run's totals, in the names the live task usage has. */
function syncUsageOf(response: Json | undefined): Json | null {
  const usage: Json = {};
  if (typeof response?.totalTokens === 'number') usage.total_tokens = response.totalTokens;
  if (typeof response?.totalToolUseCount === 'number') usage.tool_uses = response.totalToolUseCount;
  if (typeof response?.totalDurationMs === 'number') usage.duration_ms = response.totalDurationMs;
  return Object.keys(usage).length > 0 ? usage : null;
}

function placeholderOf(block: Json): string {
  const source = record(block.source);
  const mediaType = str(source?.media_type);
  const data = str(source?.data);
  const size = data === undefined ? '' : `, ${Math.max(1, Math.round((data.length * 3) / 4 / 1024))} KB`;
  const kind = block.type === 'image' ? 'An image' : 'A document';
  return `[${kind}${mediaType === undefined ? '' : ` (${mediaType}${size})`} was attached here; the history does not show attachments.]`;
}

const tagged = (text: string, tag: string): string | undefined =>
  new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text)?.[1];

/**
 * A user entry's text as the person typed it: a slash command as `/name args`, a `!` shell command as such;
 * undefined for what Claude Code wrote itself (a command's output, a caveat, an interruption marker).
 */
function promptTextOf(content: string): string | undefined {
  const trimmed = content.trim();
  if (trimmed === '' || interruptionMarker.test(trimmed)) return undefined;
  const command = tagged(trimmed, 'command-name');
  if (command !== undefined && trimmed.startsWith('<command-name>')) {
    const args = tagged(trimmed, 'command-args')?.trim() ?? '';
    return args === '' ? command.trim() : `${command.trim()} ${args}`;
  }
  const shell = tagged(trimmed, 'bash-input');
  if (shell !== undefined && trimmed.startsWith('<bash-input>')) return `!${shell}`;
  if (/^<(local-command-stdout|local-command-stderr|local-command-caveat|bash-stdout|bash-stderr)>/.test(trimmed)) {
    return undefined;
  }
  return content;
}

function taskNotificationOf(
  content: string,
): { toolUseId?: string; status?: string; summary?: string; result?: string; usage?: Json } | undefined {
  const body = tagged(content.trim(), 'task-notification');
  if (body === undefined || !content.trimStart().startsWith('<task-notification>')) return undefined;
  const usageText = tagged(body, 'usage');
  let usage: Json | undefined;
  if (usageText !== undefined) {
    usage = {};
    const tokens = Number(tagged(usageText, 'subagent_tokens') ?? tagged(usageText, 'total_tokens'));
    const tools = Number(tagged(usageText, 'tool_uses'));
    const duration = Number(tagged(usageText, 'duration_ms'));
    if (Number.isFinite(tokens)) usage.total_tokens = tokens;
    if (Number.isFinite(tools)) usage.tool_uses = tools;
    if (Number.isFinite(duration)) usage.duration_ms = duration;
  }
  const found: { toolUseId?: string; status?: string; summary?: string; result?: string; usage?: Json } = {};
  const toolUseId = tagged(body, 'tool-use-id')?.trim();
  const status = tagged(body, 'status')?.trim();
  const summary = tagged(body, 'summary')?.trim();
  const result = tagged(body, 'result')?.trim();
  if (toolUseId) found.toolUseId = toolUseId;
  if (status) found.status = status;
  if (summary) found.summary = summary;
  if (result) found.result = result;
  if (usage !== undefined && Object.keys(usage).length > 0) found.usage = usage;
  return found;
}
