import type {
  HistoryChangedEvent,
  HostEvent,
  HostInfo,
  PostTurnBody,
  PostTurnResponse,
  SessionDetail,
  SessionEvent,
  SessionSnapshot,
} from '@outrigger/host-api';
import { hostLimits } from '@outrigger/host-api';
import type { EventStream } from '../../events/eventStream.ts';
import { HostError } from '../../hostError.ts';
import type { HostService } from '../../service/hostService.ts';
import { MemoryEventLog } from './memoryEventLog.ts';

type Method = Exclude<keyof HostService, 'info'>;

/**
 * A `HostService` for HTTP tests: every call is recorded; sessions, turns and both event logs are kept in
 * memory; a posted turn publishes `turn_started`, one `text`, `result` and `done` on the next tick. Any
 * method can be replaced through `overrides` (e.g. to throw a given error).
 */
const FAKE_CHECKPOINT = 'c'.repeat(40);

export class FakeHostService implements HostService {
  readonly calls: { method: string; args: unknown[] }[] = [];
  readonly sessionLogs = new Map<string, MemoryEventLog<SessionEvent>>();
  readonly hostLog: MemoryEventLog<HostEvent>;
  /** `history_changed` events, as `{ data: event }` with the revision as their seq. */
  readonly historyLog = new MemoryEventLog<{ data: HistoryChangedEvent & { seq: number } }>();
  readonly overrides: Partial<Record<Method, (...args: never[]) => unknown>> = {};
  readonly #bufferLimit: number | undefined;
  #turns = 0;
  closed = false;

  constructor(options: { bufferLimit?: number } = {}) {
    this.#bufferLimit = options.bufferLimit;
    this.hostLog = new MemoryEventLog({ bufferLimit: options.bufferLimit });
  }

  info(): HostInfo {
    return {
      version: '0.1.0',
      modelBackend: 'demo',
      modelBackendReason: 'no credential was found',
      defaultCwd: '/tmp',
      allowRoots: [],
      limits: { ...hostLimits },
    };
  }

  /** Adds a session (no call recorded) and returns its id. */
  addSession(id: string): string {
    this.sessionLogs.set(id, new MemoryEventLog({ bufferLimit: this.#bufferLimit }));
    return id;
  }

  /** Appends an event with the next seq to a session's log (published to its open streams). */
  publish(sessionId: string, event: DistributiveOmitSeq<SessionEvent>): SessionEvent {
    const log = this.#log(sessionId);
    const seq = log.events.length + 1;
    return log.append({ type: event.type, data: { ...event.data, seq } } as SessionEvent);
  }

  #log(sessionId: string): MemoryEventLog<SessionEvent> {
    const log = this.sessionLogs.get(sessionId);
    if (log === undefined) throw new HostError('not_found', 'no such session');
    return log;
  }

  async #call<T>(method: Method, args: unknown[], fallback: () => T | Promise<T>): Promise<T> {
    this.calls.push({ method, args });
    const override = this.overrides[method] as ((...values: unknown[]) => T | Promise<T>) | undefined;
    return override === undefined ? fallback() : override(...args);
  }

  createSession: HostService['createSession'] = (body) =>
    this.#call('createSession', [body], () => {
      const id = this.addSession(`s${this.sessionLogs.size + 1}`);
      return { id, providerSessionId: id, session: summary(id, body.cwd) };
    });
  listSessions: HostService['listSessions'] = (options) =>
    this.#call('listSessions', [options], () => ({
      sessions: [...this.sessionLogs.keys()].map((id) => summary(id, '/tmp')),
      lastSeq: this.hostLog.events.length,
    }));
  sessionLastSeq: HostService['sessionLastSeq'] = (sessionId) =>
    this.#call('sessionLastSeq', [sessionId], () => this.#log(sessionId).events.length);
  getSnapshot: HostService['getSnapshot'] = (sessionId) =>
    this.#call('getSnapshot', [sessionId], () => snapshot(sessionId, this.#log(sessionId).events.length));
  renameSession: HostService['renameSession'] = (sessionId, title) =>
    this.#call('renameSession', [sessionId, title], () => ({ ...detail(sessionId), title }));
  updateSettings: HostService['updateSettings'] = (sessionId, patch) =>
    this.#call('updateSettings', [sessionId, patch], () => detail(sessionId));
  closeSession: HostService['closeSession'] = (sessionId) => this.#call('closeSession', [sessionId], () => undefined);
  archiveSession: HostService['archiveSession'] = (sessionId, archived) =>
    this.#call('archiveSession', [sessionId, archived], () => ({
      ...summary(sessionId, '/tmp'),
      archivedAt: archived ? 1 : null,
    }));
  deleteSession: HostService['deleteSession'] = (sessionId) =>
    this.#call('deleteSession', [sessionId], () => ({
      sessionId,
      claudeTranscriptIds: [sessionId],
      checkpointsRemoved: false,
    }));
  searchSessions: HostService['searchSessions'] = (text, filter) =>
    this.#call('searchSessions', [text, filter], () => ({ results: [], truncated: false }));
  recentDirectories: HostService['recentDirectories'] = () =>
    this.#call('recentDirectories', [], () => ({ directories: [] }));
  completeDirectory: HostService['completeDirectory'] = (prefix) =>
    this.#call('completeDirectory', [prefix], () => ({ directory: '/tmp', entries: [], truncated: false }));
  forkSession: HostService['forkSession'] = (sessionId, body) =>
    this.#call('forkSession', [sessionId, body], () => ({
      id: 'f1',
      providerSessionId: 'f1',
      session: summary('f1', '/tmp'),
    }));
  listHistory: HostService['listHistory'] = (query) =>
    this.#call('listHistory', [query], () => ({
      configDir: '/tmp/.claude',
      projects: [],
      total: 0,
      hiddenOutsideRoots: 0,
      indexState: 'ready' as const,
      revision: this.historyLog.events.length,
    }));
  getHistoryMessages: HostService['getHistoryMessages'] = (claudeSessionId, query) =>
    this.#call('getHistoryMessages', [claudeSessionId, query], (): never => {
      throw new HostError('not_found', 'no Claude Code session with that id here');
    });
  continueHistory: HostService['continueHistory'] = (claudeSessionId, body) =>
    this.#call('continueHistory', [claudeSessionId, body], () => ({
      id: 'c1',
      providerSessionId: claudeSessionId,
      session: summary('c1', '/tmp'),
    }));
  postTurn: HostService['postTurn'] = (sessionId, body) =>
    this.#call('postTurn', [sessionId, body], () => this.#runTurn(sessionId, body));
  cancelTurn: HostService['cancelTurn'] = (sessionId, turnId, budgets) =>
    this.#call('cancelTurn', [sessionId, turnId, budgets], () => ({
      turnId,
      canceled: true,
      disposition: 'pre_accept' as const,
      providerTurnId: turnId,
    }));
  editQueuedTurn: HostService['editQueuedTurn'] = (sessionId, turnId, prompt) =>
    this.#call('editQueuedTurn', [sessionId, turnId, prompt], () => ({
      turnId,
      prompt,
      clientMessageId: null,
      imageCount: 0,
      createdAt: 0,
      paused: true,
    }));
  runQueuedTurn: HostService['runQueuedTurn'] = (sessionId, turnId) =>
    this.#call('runQueuedTurn', [sessionId, turnId], () => ({ turnId, started: true }));
  resumeQueue: HostService['resumeQueue'] = (sessionId) =>
    this.#call('resumeQueue', [sessionId], () => ({ startedTurnId: null, queuedPrompts: [] }));
  listMessages: HostService['listMessages'] = (sessionId, query) =>
    this.#call('listMessages', [sessionId, query], () => ({ messages: [], turns: [], hasMore: false }));
  getToolResult: HostService['getToolResult'] = (sessionId, toolUseId) =>
    this.#call('getToolResult', [sessionId, toolUseId], () => ({
      type: 'tool_result' as const,
      tool_use_id: toolUseId,
      content: 'ok',
      is_error: false,
      resultSource: 'canonical' as const,
      truncated: false,
      length: 2,
    }));
  listChanges: HostService['listChanges'] = (sessionId) =>
    this.#call('listChanges', [sessionId], () => {
      this.#log(sessionId);
      return { session: { from: null, to: null, files: [] }, turns: [], checkpoints: [], error: null };
    });
  getFilePatch: HostService['getFilePatch'] = (sessionId, query) =>
    this.#call('getFilePatch', [sessionId, query], (): never => {
      throw new HostError('not_found', 'no such file in this diff');
    });
  rewind: HostService['rewind'] = (sessionId, body) =>
    this.#call('rewind', [sessionId, body], () => ({
      dryRun: body.dryRun === true,
      target: body.checkpointId ?? FAKE_CHECKPOINT,
      files: [],
      safetyCheckpoint: null,
    }));
  revert: HostService['revert'] = (sessionId, body) =>
    this.#call('revert', [sessionId, body], () => ({
      dryRun: body.dryRun === true,
      target: body.from,
      files: [],
      safetyCheckpoint: null,
    }));
  getWorktree: HostService['getWorktree'] = (sessionId) =>
    this.#call('getWorktree', [sessionId], (): never => {
      throw new HostError('not_found', 'the session has no worktree');
    });
  worktreeAction: HostService['worktreeAction'] = (sessionId, body) =>
    this.#call('worktreeAction', [sessionId, body], (): never => {
      throw new HostError('not_found', 'the session has no worktree');
    });
  listModels: HostService['listModels'] = () => this.#call('listModels', [], () => ({ models: [], reportedAt: null }));
  listCommands: HostService['listCommands'] = (sessionId) =>
    this.#call('listCommands', [sessionId], () => ({ commands: [] }));
  completeFiles: HostService['completeFiles'] = (sessionId, prefix) =>
    this.#call('completeFiles', [sessionId, prefix], () => ({
      entries: [],
      truncated: false,
      source: 'walk' as const,
    }));
  getAttachment: HostService['getAttachment'] = (attachmentId) =>
    this.#call('getAttachment', [attachmentId], () => ({
      mediaType: 'image/png' as const,
      bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
    }));
  listTasks: HostService['listTasks'] = (sessionId) => this.#call('listTasks', [sessionId], () => []);
  createTask: HostService['createTask'] = (body) =>
    this.#call('createTask', [body], () => ({
      id: 'task-1',
      session_id: body.session_id,
      title: body.title,
      status: body.status ?? 'pending',
      description: body.description ?? null,
      sort_order: 0,
      source: 'user' as const,
      created_at: 1,
      updated_at: 1,
    }));
  updateTask: HostService['updateTask'] = (taskId, patch) =>
    this.#call('updateTask', [taskId, patch], () => {
      throw new HostError('conflict', 'an SDK task follows the agent’s plan and cannot be edited');
    });
  deleteTask: HostService['deleteTask'] = (taskId) => this.#call('deleteTask', [taskId], () => undefined);
  listInteractions: HostService['listInteractions'] = (filter) =>
    this.#call('listInteractions', [filter], () => ({ interactions: [], lastSeq: this.hostLog.events.length }));
  answerInteraction: HostService['answerInteraction'] = (sessionId, requestId, body) =>
    this.#call('answerInteraction', [sessionId, requestId, body], () => {
      throw new HostError('gone', 'the interaction was superseded');
    });

  openSessionStream(sessionId: string, afterSeq: number): EventStream<SessionEvent> {
    this.calls.push({ method: 'openSessionStream', args: [sessionId, afterSeq] });
    return this.#log(sessionId).open(afterSeq);
  }

  /** `history_changed` from now on: `historyLog.append({ data: { revision, claudeSessionIds } })` publishes one. */
  openHistoryStream(): EventStream<HistoryChangedEvent> {
    this.calls.push({ method: 'openHistoryStream', args: [] });
    return mapStream(this.historyLog.open(this.historyLog.events.length), (event) => event.data);
  }

  openHostStream(afterSeq: number): EventStream<HostEvent> {
    this.calls.push({ method: 'openHostStream', args: [afterSeq] });
    return this.hostLog.open(afterSeq);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const log of this.sessionLogs.values()) log.shutdown();
    this.hostLog.shutdown();
    this.historyLog.shutdown();
  }

  #runTurn(sessionId: string, body: PostTurnBody): PostTurnResponse {
    this.#log(sessionId);
    this.#turns += 1;
    const turnId = `t${this.#turns}`;
    setImmediate(() => {
      const base = { session_id: sessionId, turnId };
      this.publish(sessionId, { type: 'turn_started', data: { ...base, kind: 'user', message: null } });
      const text = `echo: ${body.prompt}`;
      this.publish(sessionId, {
        type: 'text',
        data: { ...base, messageId: `m-${turnId}`, delta: text, final: true, text, interrupted: false },
      });
      this.publish(sessionId, {
        type: 'result',
        data: { ...base, outcome: 'completed', stopReason: 'end_turn', error: null, usage: null, durationMs: 1 },
      });
      this.publish(sessionId, { type: 'done', data: { ...base, outcome: 'completed', error: null } });
    });
    return { turnId, queued: false, steered: false, replayed: false };
  }
}

/** The stream of `stream`'s events, each mapped. */
function mapStream<A, B>(stream: EventStream<A>, map: (event: A) => B): EventStream<B> {
  return {
    ended: stream.ended,
    close: () => stream.close(),
    async *[Symbol.asyncIterator]() {
      for await (const event of stream) yield map(event);
    },
  };
}

type DistributiveOmitSeq<E> = E extends { type: infer T; data: infer D } ? { type: T; data: Omit<D, 'seq'> } : never;

function summary(id: string, cwd: string) {
  return {
    id,
    title: 'New session',
    cwd,
    status: 'idle' as const,
    closed: false,
    needsInputCount: 0,
    runningTurnId: null,
    runningTurnStartedAt: null,
    queuePaused: false,
    lastError: null,
    model: 'default',
    permissionMode: 'default' as const,
    forkedFrom: null,
    archivedAt: null,
    createdAt: 1,
    updatedAt: 1,
    lastActivityAt: 1,
  };
}

function detail(id: string): SessionDetail {
  return {
    ...summary(id, '/tmp'),
    providerSessionId: id,
    settings: { model: 'default', permissionMode: 'default', planMode: false, effort: null },
    effectiveModel: null,
    configOptions: [],
    worktree: null,
    usage: { contextWindow: null, inputTokens: 0, outputTokens: 0, totalCostUsd: null },
    terminalCommand: `cd /tmp && claude --resume ${id}`,
    continuedFrom: null,
  };
}

function snapshot(id: string, lastSeq: number): SessionSnapshot {
  return {
    session: detail(id),
    lastSeq,
    openTurn: null,
    pendingInteractions: [],
    queuedPrompts: [],
    backgroundTasks: [],
    tasks: [],
    messages: { messages: [], turns: [], hasMore: false },
  };
}
