import type { ClientCapabilities, ContentBlock, SessionUpdate, ToolCall } from '@agentclientprotocol/sdk';
import type {
  MessageView,
  SessionEvent,
  SessionEventPayload,
  SessionSettings,
  ToolResultBlock,
  ToolUseBlock,
} from '@outrigger/host-api';
import {
  compactionUpdateOf,
  liveNoticeOf,
  type NoticeRoute,
  noticeRouteOf,
  noticeText,
  plainNoticeOf,
} from './notices.ts';
import { planOfTodos, todosOfInput } from './plans.ts';
import { configOptionsOf, type HostConfigOption, type HostConfigValue, modeOf } from './sessionConfig.ts';
import { TextStreams } from './textStreams.ts';
import { resultReplaces, toolCallChange, toolCallOf } from './toolCalls.ts';

export interface SessionUpdatesOptions {
  readonly cwd: string; // the session's directory: tool locations become absolute paths under it
  readonly clientCapabilities?: ClientCapabilities; // from initialize (e.g. whether the client knows notice/compaction updates)
  /**
   * What the editor was given with `session/new` or `session/load` (the session detail's settings and
   * `configOptions`, the `GET /api/models` catalogue): later `settings` and `mode_changed` events then send
   * only what changed from it. Without it the first `settings` event sends the whole state.
   */
  readonly settings?: {
    readonly settings: SessionSettings;
    readonly configOptions: readonly HostConfigOption[];
    readonly models?: readonly HostConfigValue[];
  };
}

interface TrackedTool {
  tool: ToolUseBlock;
  result: ToolResultBlock | null;
  /** What the editor was last told of the call; undefined until its `tool_call`. */
  sent: ToolCall | undefined;
}

/**
 * One host session's events and rows → ACP `session/update` payloads for one editor connection. Remembers
 * which tool calls the editor has been told of, and how much of each text block it has sent.
 *
 * Events come from one session stream, in seq order: an event at or below the last seq seen is a replay (a
 * reconnect that resumed too early) and changes nothing. Rows (`fromRow`) have no seq; they are the history a
 * `session/load` replays before the live events after the snapshot's `lastSeq`.
 */
export class SessionUpdates {
  readonly #cwd: string;
  readonly #route: NoticeRoute;
  readonly #texts = new TextStreams();
  readonly #tools = new Map<string, TrackedTool>();
  readonly #ownTurns = new Set<string>();
  readonly #ownPrompts = new Set<string>();
  /** Per notice row: the last text sent and how many were sent (each plain notice is a message of its own). */
  readonly #notices = new Map<string, { text: string; count: number }>();
  #lastSeq = 0;
  #settings: SessionSettings | undefined;
  #configOptions: readonly HostConfigOption[] = [];
  readonly #models: readonly HostConfigValue[];
  #sentMode: string | undefined;
  #sentConfig: string | undefined;
  #sentTitle: string | undefined;
  #sentUsage: string | undefined;

  constructor(options: SessionUpdatesOptions) {
    this.#cwd = options.cwd;
    this.#route = noticeRouteOf(options.clientCapabilities);
    this.#models = options.settings?.models ?? [];
    if (options.settings !== undefined) {
      this.#settings = options.settings.settings;
      this.#configOptions = options.settings.configOptions;
      this.#sentMode = modeOf(this.#settings);
      this.#sentConfig = JSON.stringify(configOptionsOf(this.#settings, this.#configOptions, this.#models));
    }
  }

  /** A turn this editor posted itself: its prompt is not echoed back as a user_message_chunk. */
  ownTurn(turnId: string): void {
    this.#ownTurns.add(turnId);
  }

  /**
   * A prompt this editor posts with this `clientMessageId`: neither the turn it starts nor the steer it makes is
   * echoed. Mark it before the POST: the turn's `turn_started` can reach the stream before the POST's answer
   * names the turn (which `ownTurn` needs). A steer is known only this way: the turn it steers may be anyone's.
   */
  ownPrompt(clientMessageId: string): void {
    this.#ownPrompts.add(clientMessageId);
  }

  /** One live event of `GET /api/sessions/:id/events` (type + data as in sessionEventPayloadSchemas) → its updates (often none). */
  fromEvent(event: SessionEvent): SessionUpdate[] {
    if (event.data.seq <= this.#lastSeq) return [];
    this.#lastSeq = event.data.seq;
    switch (event.type) {
      case 'text':
      case 'thinking':
        return this.#textEvent(event.type, event.data);
      case 'turn_started': {
        const { message, turnId } = event.data;
        if (event.data.kind !== 'user' || message === null) return [];
        if (this.#ownTurns.has(turnId) || this.#isOwnPrompt(message)) return [];
        return userChunksOf(message);
      }
      case 'user_message':
        return this.#isOwnPrompt(event.data.message) ? [] : userChunksOf(event.data.message);
      case 'tool_use': {
        const tracked = this.#tools.get(event.data.tool.id);
        if (tracked === undefined)
          this.#tools.set(event.data.tool.id, { tool: event.data.tool, result: null, sent: undefined });
        else tracked.tool = event.data.tool;
        return this.#toolUpdates(event.data.tool.id);
      }
      case 'tool_result':
        return this.#toolResult(event.data);
      case 'tool_output': {
        const tracked = this.#tools.get(event.data.tool_use_id);
        // The log always has the call's tool_use first; output of a call never introduced has nothing to name it.
        if (tracked === undefined) return [];
        tracked.tool = { ...tracked.tool, output: event.data.output };
        return this.#toolUpdates(event.data.tool_use_id);
      }
      case 'agent_task': {
        const tracked = this.#tools.get(event.data.tool_use_id);
        if (tracked === undefined) return [];
        tracked.tool = { ...tracked.tool, agentTask: event.data.task };
        return this.#toolUpdates(event.data.tool_use_id);
      }
      case 'task_update':
        return [planOfTodos(event.data.todos)];
      case 'notice':
        return this.#notice(event.data.message, 'live');
      case 'title':
        if (event.data.title === this.#sentTitle) return [];
        this.#sentTitle = event.data.title;
        return [{ sessionUpdate: 'session_info_update', title: event.data.title }];
      case 'mode_changed': {
        const { permissionMode, planMode } = event.data;
        if (this.#settings !== undefined) this.#settings = { ...this.#settings, permissionMode, planMode };
        return this.#settingsUpdates(modeOf({ permissionMode, planMode }));
      }
      case 'settings':
        this.#settings = event.data.settings;
        // `configOptions` come only when they changed: the last ones still hold otherwise.
        if (event.data.configOptions !== undefined) this.#configOptions = event.data.configOptions;
        return this.#settingsUpdates(modeOf(event.data.settings));
      case 'usage':
        return this.#usage(event.data);
      // The person's own tasks are not the agent's plan; the rest is the turn logic's (done, permissions, …)
      // or has no ACP form (status, queue, checkpoints, background work: it shows on its Agent call).
      default:
        return [];
    }
  }

  /** One transcript row (`listMessages`), for `session/load`'s replay of the history → its updates, the same the live stream would have produced (a tool call with its final status and content). */
  fromRow(row: MessageView): SessionUpdate[] {
    if (row.role === 'user') return userChunksOf(row);
    if (row.role === 'system') return this.#notice(row, 'history');
    const block = row.content[0];
    switch (block?.type) {
      case 'text':
      case 'thinking': {
        const text = block.type === 'text' ? block.text : block.thinking;
        this.#texts.replayed(row.id, text, row.status === 'streaming');
        if (text === '') return [];
        return [chunk(block.type === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk', row.id, text)];
      }
      case 'tool_use': {
        const result = row.content.find((item) => item.type === 'tool_result') ?? null;
        const tracked = this.#tools.get(block.id);
        if (tracked === undefined) this.#tools.set(block.id, { tool: block, result, sent: undefined });
        else Object.assign(tracked, { tool: block, result });
        const updates = this.#toolUpdates(block.id);
        // Live, a TodoWrite that took is followed by its task_update; the row is all the history keeps of it.
        const todos =
          block.name === 'TodoWrite' && block.status === 'completed' ? todosOfInput(block.input) : undefined;
        return todos === undefined ? updates : [...updates, planOfTodos(todos)];
      }
      default:
        return [];
    }
  }

  #textEvent(type: 'text' | 'thinking', data: SessionEventPayload<'text'>): SessionUpdate[] {
    const text = data.final
      ? this.#texts.final(data.messageId, data.text, data.interrupted)
      : this.#texts.delta(data.messageId, data.delta);
    if (text === undefined) return [];
    return [chunk(type === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk', data.messageId, text)];
  }

  #toolResult(data: SessionEventPayload<'tool_result'>): SessionUpdate[] {
    const tracked = this.#tools.get(data.tool_use_id);
    const tool = data.tool ?? (tracked === undefined ? unknownTool(data.tool_use_id) : tracked.tool);
    if (tracked === undefined) {
      this.#tools.set(data.tool_use_id, {
        tool: { ...tool, status: data.status },
        result: data.result,
        sent: undefined,
      });
      return this.#toolUpdates(data.tool_use_id);
    }
    // A result of a lower rank than the one shown (a hook's after Claude Code's own) changes nothing.
    if (!resultReplaces(data.result.resultSource, tracked.result?.resultSource)) return [];
    tracked.result = data.result;
    // Logs from before `tool` was added carry only the status.
    tracked.tool = data.tool ?? { ...tracked.tool, status: data.status };
    return this.#toolUpdates(data.tool_use_id);
  }

  /** The call's first sight → `tool_call`; any later change → a `tool_call_update` of what changed. */
  #toolUpdates(toolUseId: string): SessionUpdate[] {
    const tracked = this.#tools.get(toolUseId)!;
    const parentId = tracked.tool.parentToolUseId;
    const parent = parentId === null ? undefined : this.#tools.get(parentId)?.tool;
    const call = toolCallOf(tracked.tool, tracked.result, { cwd: this.#cwd, parent });
    const before = tracked.sent;
    tracked.sent = call;
    if (before === undefined) return [{ sessionUpdate: 'tool_call', ...call }];
    const change = toolCallChange(before, call);
    return change === undefined ? [] : [{ sessionUpdate: 'tool_call_update', ...change }];
  }

  /**
   * A notice row. A compaction is an entity a client that knows compactions keeps in its timeline, live and in a
   * replay alike. Live notices are fire-and-forget, never history (ACP): a replay sends the plain message.
   */
  #notice(message: MessageView, from: 'live' | 'history'): SessionUpdate[] {
    const text = noticeText(message);
    const seen = this.#notices.get(message.id);
    if (seen?.text === text) return [];
    const count = seen?.count ?? 0;
    this.#notices.set(message.id, { text, count: count + 1 });
    if (message.noticeKind === 'compaction' && this.#route.compaction) return [compactionUpdateOf(message)];
    if (from === 'live' && this.#route.notices) return [liveNoticeOf(message)];
    // The same compaction row goes from "Compacting..." to "Compacting completed.": each its own message,
    // so the two do not run together into one line.
    const plain = plainNoticeOf(message, count === 0 ? message.id : `${message.id}-${count}`);
    return plain === undefined ? [] : [plain];
  }

  #settingsUpdates(mode: string): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    if (mode !== this.#sentMode) {
      this.#sentMode = mode;
      updates.push({ sessionUpdate: 'current_mode_update', currentModeId: mode });
    }
    if (this.#settings !== undefined) {
      const configOptions = configOptionsOf(this.#settings, this.#configOptions, this.#models);
      const json = JSON.stringify(configOptions);
      if (json !== this.#sentConfig) {
        this.#sentConfig = json;
        updates.push({ sessionUpdate: 'config_option_update', configOptions });
      }
    }
    return updates;
  }

  /** The context window, once Claude Code reported its size (ACP's update needs both numbers). */
  #usage(data: SessionEventPayload<'usage'>): SessionUpdate[] {
    const window = data.usage.contextWindow;
    if (window === null || window.totalTokens === undefined) return [];
    const update: SessionUpdate = { sessionUpdate: 'usage_update', used: window.usedTokens, size: window.totalTokens };
    // An unknown cost stays unknown (the host's null), never 0.
    if (data.usage.totalCostUsd !== null) update.cost = { amount: data.usage.totalCostUsd, currency: 'USD' };
    const json = JSON.stringify(update);
    if (json === this.#sentUsage) return [];
    this.#sentUsage = json;
    return [update];
  }

  #isOwnPrompt(message: MessageView): boolean {
    return message.clientMessageId !== null && this.#ownPrompts.has(message.clientMessageId);
  }
}

function chunk(
  kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk',
  messageId: string,
  text: string,
): SessionUpdate {
  const content: ContentBlock = { type: 'text', text };
  return { sessionUpdate: kind, messageId, content };
}

/**
 * A prompt row as user chunks: its text blocks, one chunk each, a blank line between them. Images are left
 * out: ACP's image content needs the bytes, which the host serves only from `GET /api/attachments/:id`.
 */
function userChunksOf(message: MessageView): SessionUpdate[] {
  const texts = message.content.flatMap((block) => (block.type === 'text' && block.text !== '' ? [block.text] : []));
  return texts.map((text, index) => chunk('user_message_chunk', message.id, index === 0 ? text : `\n\n${text}`));
}

/** A result whose call the stream never introduced (a log from before `tool` was carried): a call with no name. */
function unknownTool(id: string): ToolUseBlock {
  return {
    type: 'tool_use',
    id,
    name: 'Tool call',
    callType: 'tool',
    input: {},
    status: 'completed',
    parentToolUseId: null,
    locations: [],
    fileChange: null,
    agentTask: null,
    background: null,
    output: null,
    startedAt: 0,
    endedAt: null,
    outcome: null,
    decision: null,
    elapsedSeconds: null,
  };
}
