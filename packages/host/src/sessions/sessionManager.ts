import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import {
  type AnswerInteractionBody,
  type AnswerInteractionResponse,
  type CancelTurnBody,
  type CancelTurnResponse,
  type ContinueHistoryBody,
  type CreateSessionBody,
  type CreateSessionResponse,
  type CreateTaskBody,
  type DeleteSessionResponse,
  type DirectoryCompletion,
  type FileCompletion,
  type FilePatch,
  type FilePatchQuery,
  type ForkSessionBody,
  type HostEvent,
  type HostInfo,
  hostLimits,
  type ImageMediaType,
  type InteractionList,
  type InteractionStatus,
  type MessagesPage,
  type MessagesQuery,
  type ModelCatalogue,
  type PatchSettingsBody,
  type PatchTaskBody,
  type PostTurnBody,
  type PostTurnResponse,
  type QueuedPrompt,
  type RecentDirectories,
  type ResumeQueueResponse,
  type RevertBody,
  type RewindBody,
  type RewindResult,
  type RunQueuedTurnResponse,
  type SessionChanges,
  type SessionCommands,
  type SessionDetail,
  type SessionEvent,
  type SessionList,
  type SessionSearch,
  type SessionSettings,
  type SessionSnapshot,
  type SessionSummary,
  type Task,
  type ToolResultBlock,
  type WorktreeActionBody,
  type WorktreeActionResponse,
  type WorktreeStatus,
} from '@outrigger/host-api';
import type { SidecarEvent } from '@outrigger/protocol';
import type { EventStream } from '../events/eventStream.ts';
import type { ClaudeHistoryReader } from '../history/claudeHistoryReader.ts';
import { HostError } from '../hostError.ts';
import { errorName } from '../logging/errorName.ts';
import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import type { NewForkInit, NewSessionInit } from '../projection/projectedSessionLedger.ts';
import type { SessionService } from '../service/hostService.ts';
import type { SidecarExitReport, SidecarSupervisor } from '../sidecar/sidecarSupervisor.ts';
import type {
  CommitResult,
  HostStoreReader,
  MessageRecordPage,
  SessionListFilter,
  SessionSnapshotRecords,
  WriteUnit,
} from '../store/hostStore.ts';
import type { MessageRecord, SessionRecord, TurnRecord } from '../store/records.ts';
import { resolveCancelBudgets } from './cancelBudgets.ts';
import type { ClaudeTranscripts } from './claudeTranscripts.ts';
import { resolveSessionCwd } from './cwdPolicy.ts';
import { completeDirectory, recentDirectories } from './directoryCompletion.ts';
import { HistoryContinue } from './historyContinue.ts';
import { HostSession } from './hostSession.ts';
import { modelRejectionOf } from './modelRejection.ts';
import { TranscriptWatch } from './outsideChanges.ts';
import { SessionArchive } from './sessionArchive.ts';
import { SessionCompletions } from './sessionCompletions.ts';
import { forkPoint, forkTranscript, sidecarUnavailable } from './sessionFork.ts';
import { START_TIMEOUT_MS, startPayload } from './sessionInSidecar.ts';
import type { SessionLedger } from './sessionLedger.ts';
import { noChanges, SessionReview } from './sessionReview.ts';
import { searchSessions } from './sessionSearch.ts';
import { SessionWorktrees } from './sessionWorktrees.ts';

/** Where session ledgers come from: the projector over the store and the hub. */
export interface SessionLedgers {
  create(init: NewSessionInit): Promise<SessionLedger>;
  fork(init: NewForkInit): Promise<SessionLedger>;
  load(sessionId: string): Promise<SessionLedger | undefined>;
}

/** Contract views of stored rows (the projection's). */
export interface HostViews {
  summary(session: SessionRecord): SessionSummary;
  detail(session: SessionRecord): SessionDetail;
  snapshot(records: SessionSnapshotRecords): SessionSnapshot;
  messagesPage(page: MessageRecordPage, turns: readonly TurnRecord[]): MessagesPage;
  /** The whole result of a tool row, or undefined when it has none yet. */
  toolResult(message: MessageRecord): ToolResultBlock | undefined;
}

export interface EventStreams {
  openSessionStream(sessionId: string, afterSeq: number): EventStream<SessionEvent>;
  openHostStream(afterSeq: number): EventStream<HostEvent>;
  shutdown(): void;
}

export interface SessionManagerOptions {
  readonly store: HostStoreReader & { close(): Promise<void> };
  readonly streams: EventStreams;
  readonly ledgers: SessionLedgers;
  readonly views: HostViews;
  readonly supervisor: SidecarSupervisor;
  readonly logger: RuntimeLogger;
  readonly info: HostInfo;
  /** `--allow-root` directories; empty: any existing directory. */
  readonly allowRoots: readonly string[];
  /** `--tool-timeout` in ms; off when undefined. */
  readonly toolTimeoutMs?: number;
  /** Checkpoints of every turn (review and rewind) in shadow repositories here; off when undefined. */
  readonly checkpointsDir?: string;
  /** Sessions created with `worktree: true` get a git worktree here; refused when undefined. */
  readonly worktreesDir?: string;
  readonly now?: () => number;
  readonly newId?: () => string;
  /** Persist, then publish, for writes outside a session's ledger (a delete); deleting is refused without it. */
  readonly committer?: { commit(unit: WriteUnit): Promise<CommitResult> };
  /** The home directory `~` names (default: the user's). */
  readonly home?: string;
  /** Claude Code's history: continuing one of its sessions, and seeing a transcript grow outside Outrigger. */
  readonly history?: ClaudeHistoryReader;
  /**
   * The transcripts' messages, copies and files (`sdkTranscripts` over the host's SDK worker): a continue needs it
   * with `history`; without it no transcript is watched for what grows outside Outrigger.
   */
  readonly transcripts?: ClaudeTranscripts;
}

/**
 * The host's core (`HostService`): sessions over the one supervised sidecar, each driven by its
 * `HostSession` (per-session serial queue), rows and events through the projection's ledgers, reads
 * straight from the store. `open()` recovers what a previous run left running (*a restart ends what ran*).
 */
export class SessionManager implements SessionService {
  readonly #options: SessionManagerOptions;
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #sessions = new Map<string, HostSession>();
  readonly #loading = new Map<string, Promise<HostSession | undefined>>();
  /** Every session id the store has, so a stream can be refused synchronously. */
  readonly #known = new Set<string>();
  /** Sessions being created: their sidecar events wait here until the row is committed. */
  readonly #creating = new Map<string, SidecarEvent[]>();
  readonly #unsubscribe: (() => void)[] = [];
  readonly #review: SessionReview | undefined;
  readonly #completions: SessionCompletions;
  readonly #worktrees: SessionWorktrees | undefined;
  readonly #archive: SessionArchive;
  /** Sessions being deleted: no request reaches them and their sidecar events are dropped. */
  readonly #deleting = new Set<string>();
  readonly #transcripts: ClaudeTranscripts | undefined;
  readonly #historyContinue: HistoryContinue | undefined;
  #closing: Promise<void> | undefined;

  private constructor(options: SessionManagerOptions) {
    this.#options = options;
    this.#completions = new SessionCompletions(options.store);
    this.#review =
      options.checkpointsDir === undefined
        ? undefined
        : new SessionReview({ checkpointsDir: options.checkpointsDir, store: options.store });
    this.#worktrees =
      options.worktreesDir === undefined ? undefined : new SessionWorktrees({ worktreesDir: options.worktreesDir });
    this.#archive = new SessionArchive({
      store: options.store,
      commit: (unit) => {
        if (options.committer === undefined) throw new HostError('internal', 'this host cannot delete sessions');
        return options.committer.commit(unit);
      },
      removeCheckpoints: async (sessionId) => (await this.#review?.remove(sessionId)) ?? false,
    });
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? randomUUID;
    const { history } = options;
    this.#transcripts = options.transcripts;
    this.#historyContinue =
      history === undefined || this.#transcripts === undefined
        ? undefined
        : new HistoryContinue({
            history,
            transcripts: this.#transcripts,
            store: options.store,
            allowRoots: options.allowRoots,
            home: options.home,
            newId: this.#newId,
            launch: (init) => this.#launch(init),
          });
  }

  /** Builds the service and recovers every session a previous run left with running or pending work. */
  static async open(options: SessionManagerOptions): Promise<SessionManager> {
    const manager = new SessionManager(options);
    await manager.#recover();
    manager.#unsubscribe.push(
      options.supervisor.onSessionEvent((sessionId, event) => manager.#route(sessionId, event)),
      options.supervisor.onExit((report) => manager.#sidecarExited(report)),
    );
    if (options.history !== undefined) {
      manager.#unsubscribe.push(
        options.history.onChange((event) => manager.#transcriptsChanged(event.claudeSessionIds)),
      );
    }
    return manager;
  }

  info(): HostInfo {
    return this.#options.info;
  }

  // ─── sessions ────────────────────────────────────────────────────────────────────────────────

  async createSession(body: CreateSessionBody): Promise<CreateSessionResponse> {
    this.#assertRunning();
    const chosen = await resolveSessionCwd(body.cwd, this.#options.allowRoots, this.#options.home);
    const id = this.#newId();
    const made = body.worktree === true ? await this.#worktreesOf().create(chosen, body.title ?? id) : undefined;
    const cwd = made?.cwd ?? chosen;
    const settings: SessionSettings = {
      model: body.model ?? 'default',
      permissionMode: body.permissionMode ?? 'default',
      planMode: body.planMode ?? false,
      effort: body.effort ?? null,
    };
    try {
      return await this.#launch({
        id,
        cwd,
        title: body.title,
        settings,
        providerSessionId: randomUUID(),
        worktree: made?.worktree,
      });
    } catch (error) {
      if (made !== undefined && !this.#sessions.has(id))
        await this.#worktrees?.forget(made.worktree).catch(() => undefined);
      throw error;
    }
  }

  /** An Outrigger session that resumes or forks a Claude Code session of the history (`historyContinue.ts`). */
  async continueHistory(claudeSessionId: string, body: ContinueHistoryBody): Promise<CreateSessionResponse> {
    this.#assertRunning();
    if (this.#historyContinue === undefined) throw new HostError('not_found', 'this host reads no Claude Code history');
    return this.#historyContinue.continue(claudeSessionId, body);
  }

  /**
   * Starts a new session in the sidecar (with `resume` when it has a resume cursor already), then commits its
   * row and runs it; the sidecar's events for it wait until the row exists.
   */
  async #launch(init: NewSessionInit): Promise<CreateSessionResponse> {
    const { id } = init;
    const { supervisor } = this.#options;
    this.#creating.set(id, []);
    let generation: number | undefined;
    try {
      generation = await supervisor.ensure().catch((error: unknown) => {
        throw sidecarUnavailable('start the sidecar', error);
      });
      const resumeCursor = init.resumeCursor ?? null;
      const started = await supervisor
        .request(generation, 'start', startPayload({ ...init, resumeCursor }, resumeCursor !== null), {
          timeoutMs: START_TIMEOUT_MS,
        })
        .catch((error: unknown) => {
          throw modelRejectionOf(error) ?? sidecarUnavailable('start the session', error);
        });
      const ledger = await this.#options.ledgers.create({ ...init, providerSessionId: started.providerSessionId });
      const session = this.#register(ledger, generation);
      for (const event of this.#creating.get(id) ?? []) session.onSidecarEvent(event);
      return {
        id,
        providerSessionId: ledger.session.providerSessionId,
        session: this.#options.views.summary(ledger.session),
      };
    } catch (error) {
      if (generation !== undefined && !this.#sessions.has(id)) {
        void supervisor.request(generation, 'close', { agentSessionId: id }).catch(() => undefined);
      }
      throw error;
    } finally {
      this.#creating.delete(id);
    }
  }

  async listSessions(options: SessionListFilter): Promise<SessionList> {
    const { sessions, lastHostSeq } = await this.#options.store.loadSessionList(options);
    return { sessions: sessions.map((session) => this.#options.views.summary(session)), lastSeq: lastHostSeq };
  }

  async getSnapshot(sessionId: string): Promise<SessionSnapshot> {
    const records = await this.#options.store.loadSessionSnapshot(sessionId, hostLimits.messagesPageDefault);
    if (records === undefined) throw notFound('session');
    return this.#options.views.snapshot(records);
  }

  async renameSession(sessionId: string, title: string): Promise<SessionDetail> {
    const session = await this.#session(sessionId);
    await session.rename(title);
    return this.#options.views.detail(session.session);
  }

  async updateSettings(sessionId: string, patch: PatchSettingsBody): Promise<SessionDetail> {
    const session = await this.#session(sessionId);
    await session.updateSettings(patch);
    return this.#options.views.detail(session.session);
  }

  async closeSession(sessionId: string): Promise<void> {
    await (await this.#session(sessionId)).close();
  }

  async archiveSession(sessionId: string, archived: boolean): Promise<SessionSummary> {
    const session = await this.#session(sessionId);
    await this.#archive.archive(session, archived);
    return this.#options.views.summary(session.session);
  }

  async deleteSession(sessionId: string): Promise<DeleteSessionResponse> {
    const session = await this.#session(sessionId);
    return this.#archive.delete(session, {
      detach: () => {
        this.#deleting.add(sessionId);
        this.#sessions.delete(sessionId);
        this.#known.delete(sessionId);
      },
      reattach: () => {
        this.#deleting.delete(sessionId);
        this.#sessions.set(sessionId, session);
        this.#known.add(sessionId);
      },
    });
  }

  searchSessions(text: string, filter: SessionListFilter): Promise<SessionSearch> {
    return searchSessions(this.#options.store, this.#options.views.summary, text, filter);
  }

  async recentDirectories(): Promise<RecentDirectories> {
    return { directories: await recentDirectories(this.#options.store, this.#options.allowRoots) };
  }

  completeDirectory(prefix: string): Promise<DirectoryCompletion> {
    const { allowRoots, info, home = homedir() } = this.#options;
    const roots = allowRoots.length > 0 ? allowRoots : [home, info.defaultCwd];
    return completeDirectory(prefix, roots, home);
  }

  async forkSession(sessionId: string, body: ForkSessionBody): Promise<CreateSessionResponse> {
    this.#assertRunning();
    const source = (await this.#session(sessionId)).session;
    const turn = forkPoint(await this.#options.store.getTurn(sessionId, body.turnId));
    const init = await forkTranscript(this.#options.supervisor, source, turn, body, this.#newId());
    const ledger = await this.#options.ledgers.fork(init);
    this.#register(ledger, undefined);
    return {
      id: init.id,
      providerSessionId: init.providerSessionId,
      session: this.#options.views.summary(ledger.session),
    };
  }

  // ─── turns ───────────────────────────────────────────────────────────────────────────────────

  async postTurn(sessionId: string, body: PostTurnBody): Promise<PostTurnResponse> {
    this.#assertRunning();
    return (await this.#session(sessionId)).postTurn(body);
  }

  async cancelTurn(sessionId: string, turnId: string, budgets: CancelTurnBody): Promise<CancelTurnResponse> {
    const resolved = resolveCancelBudgets(budgets);
    return (await this.#session(sessionId)).cancelTurn(turnId, resolved);
  }

  async editQueuedTurn(sessionId: string, turnId: string, prompt: string): Promise<QueuedPrompt> {
    this.#assertRunning();
    return (await this.#session(sessionId)).editQueuedTurn(turnId, prompt);
  }

  async runQueuedTurn(sessionId: string, turnId: string): Promise<RunQueuedTurnResponse> {
    this.#assertRunning();
    return (await this.#session(sessionId)).runQueuedTurn(turnId);
  }

  async resumeQueue(sessionId: string): Promise<ResumeQueueResponse> {
    this.#assertRunning();
    return (await this.#session(sessionId)).unpauseQueue();
  }

  async listMessages(sessionId: string, query: MessagesQuery): Promise<MessagesPage> {
    const { store } = this.#options;
    if ((await store.getSession(sessionId)) === undefined) throw notFound('session');
    const page = await store.listMessages(sessionId, {
      before: query.before,
      limit: query.limit ?? hostLimits.messagesPageDefault,
    });
    const turnIds = [...new Set(page.messages.map((message) => message.turnId))];
    const turns = turnIds.length === 0 ? [] : await store.listTurns(sessionId, { ids: turnIds });
    return this.#options.views.messagesPage(page, turns);
  }

  // ─── what the composer and the model picker offer ───────────────────────────────────────────────

  listModels(): Promise<ModelCatalogue> {
    return this.#completions.listModels();
  }

  listCommands(sessionId: string): Promise<SessionCommands> {
    return this.#completions.listCommands(sessionId);
  }

  completeFiles(sessionId: string, prefix: string): Promise<FileCompletion> {
    return this.#completions.completeFiles(sessionId, prefix);
  }

  async getToolResult(sessionId: string, toolUseId: string): Promise<ToolResultBlock> {
    const message = await this.#options.store.getToolMessage(sessionId, toolUseId);
    const result = message === undefined ? undefined : this.#options.views.toolResult(message);
    if (result === undefined) throw notFound('tool result');
    return result;
  }

  async getAttachment(attachmentId: string): Promise<{ mediaType: ImageMediaType; bytes: Uint8Array }> {
    const attachment = await this.#options.store.getAttachment(attachmentId);
    if (attachment === undefined) throw notFound('attachment');
    return { mediaType: attachment.mediaType, bytes: attachment.bytes };
  }

  // ─── tasks ───────────────────────────────────────────────────────────────────────────────────

  async listTasks(sessionId: string | undefined): Promise<Task[]> {
    if (sessionId !== undefined && (await this.#options.store.getSession(sessionId)) === undefined) {
      throw notFound('session');
    }
    return this.#options.store.listTasks(sessionId);
  }

  async createTask(body: CreateTaskBody): Promise<Task> {
    const { session_id: sessionId, ...task } = body;
    const session = await this.#session(sessionId);
    if (session.session.closed) {
      throw new HostError('session_closed', 'the session is closed: it takes no new tasks (fork it to go on)');
    }
    return session.createTask(task);
  }

  async updateTask(taskId: string, patch: PatchTaskBody): Promise<Task> {
    const task = await this.#userTask(taskId);
    return (await this.#session(task.session_id)).updateTask(taskId, patch);
  }

  async deleteTask(taskId: string): Promise<void> {
    const task = await this.#userTask(taskId);
    await (await this.#session(task.session_id)).deleteTask(taskId);
  }

  // ─── interactions ────────────────────────────────────────────────────────────────────────────

  async listInteractions(filter: { sessionId?: string; status?: InteractionStatus }): Promise<InteractionList> {
    if (filter.sessionId !== undefined && (await this.#options.store.getSession(filter.sessionId)) === undefined) {
      throw notFound('session');
    }
    const { interactions, lastHostSeq } = await this.#options.store.loadInteractionList(filter);
    return { interactions: [...interactions], lastSeq: lastHostSeq };
  }

  async answerInteraction(
    sessionId: string,
    requestId: string,
    body: AnswerInteractionBody,
  ): Promise<AnswerInteractionResponse> {
    return (await this.#session(sessionId)).answerInteraction(requestId, body);
  }

  // ─── streams ─────────────────────────────────────────────────────────────────────────────────

  // ─── review and undo ─────────────────────────────────────────────────────────────────────────

  async listChanges(sessionId: string): Promise<SessionChanges> {
    const session = await this.#session(sessionId);
    if (this.#review === undefined) return noChanges('checkpoints are off on this host');
    return this.#review.listChanges(session);
  }

  async getFilePatch(sessionId: string, query: FilePatchQuery): Promise<FilePatch> {
    return this.#reviewOf().filePatch(await this.#session(sessionId), query);
  }

  async rewind(sessionId: string, body: RewindBody): Promise<RewindResult> {
    return this.#reviewOf().rewind(await this.#session(sessionId), body);
  }

  async revert(sessionId: string, body: RevertBody): Promise<RewindResult> {
    return this.#reviewOf().revert(await this.#session(sessionId), body);
  }

  async getWorktree(sessionId: string): Promise<WorktreeStatus> {
    return this.#worktreesOf().status(await this.#session(sessionId));
  }

  async worktreeAction(sessionId: string, body: WorktreeActionBody): Promise<WorktreeActionResponse> {
    return this.#worktreesOf().act(await this.#session(sessionId), body);
  }

  async sessionLastSeq(sessionId: string): Promise<number> {
    if (!this.#known.has(sessionId)) throw notFound('session');
    return this.#options.store.lastSessionSeq(sessionId);
  }

  openSessionStream(sessionId: string, afterSeq: number): EventStream<SessionEvent> {
    if (!this.#known.has(sessionId)) throw notFound('session');
    return this.#options.streams.openSessionStream(sessionId, afterSeq);
  }

  openHostStream(afterSeq: number): EventStream<HostEvent> {
    return this.#options.streams.openHostStream(afterSeq);
  }

  /**
   * Stops taking work; what runs is recorded as interrupted now, while the host can still write, and says
   * that the host was stopped (a crash leaves it for the next start, which says the host crashed); queued
   * prompts stay queued for the next run. Then the sidecar stops (its group reaped), every stream ends with
   * `shutdown`, the store closes.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  // ─── internals ───────────────────────────────────────────────────────────────────────────────

  async #shutdown(): Promise<void> {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    const sessions = [...this.#sessions.values()];
    await Promise.allSettled(
      sessions.map(async (session) => {
        // Stopped first: an event waiting for a refusing store gives up, so the recovery behind it can run.
        session.stop();
        await session.recover(true);
        await session.queue.drained();
      }),
    );
    await this.#options.supervisor.close();
    this.#options.streams.shutdown();
    await this.#options.store.close();
  }

  async #recover(): Promise<void> {
    const { store, logger } = this.#options;
    const sessions = await store.listSessions({ includeClosed: true });
    for (const record of sessions) this.#known.add(record.id);
    for (const record of sessions) {
      const live = await store.listTurns(record.id, { statuses: ['running', 'queued'] });
      const pending = await store.listInteractions({ sessionId: record.id, status: 'pending' });
      const running = live.some((turn) => turn.status === 'running');
      const queued = live.some((turn) => turn.status === 'queued');
      if (!running && !queued && pending.length === 0 && record.backgroundTasks.length === 0) continue;
      const session = await this.#session(record.id);
      if (running || pending.length > 0 || record.backgroundTasks.length > 0) {
        await session.recover();
        logger.info(
          { event: 'session.recovered', sessionId: record.id, runningTurns: live.length, pending: pending.length },
          'ended what the previous run left running',
        );
      }
      if (queued && !record.closed) {
        void session
          .resumeQueue()
          .catch((error: unknown) =>
            logger.error(
              { event: 'session.resume_failed', sessionId: record.id, errorName: errorName(error) },
              'queued prompts could not be resumed',
            ),
          );
      }
    }
  }

  #route(sessionId: string, event: SidecarEvent): void {
    if (this.#deleting.has(sessionId)) return;
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) {
      session.onSidecarEvent(event);
      return;
    }
    const buffered = this.#creating.get(sessionId);
    if (buffered !== undefined) {
      buffered.push(event);
      return;
    }
    this.#options.logger.warn(
      { event: 'session.unknown_event', sessionId, type: event.type },
      'a sidecar event for a session this host does not run',
    );
  }

  /** The history saw these transcripts change: the sessions they belong to look for what grew outside. */
  #transcriptsChanged(claudeSessionIds: readonly string[]): void {
    const changed = new Set(claudeSessionIds);
    for (const session of this.#sessions.values()) {
      if (changed.has(session.session.providerSessionId)) session.transcriptChanged();
    }
  }

  #sidecarExited(report: SidecarExitReport): void {
    for (const session of this.#sessions.values()) session.onSidecarExit(report);
  }

  #register(ledger: SessionLedger, startedOn: number | undefined): HostSession {
    const session = new HostSession(
      ledger,
      {
        sidecar: this.#options.supervisor,
        store: this.#options.store,
        logger: this.#options.logger,
        now: this.#now,
        newId: this.#newId,
        toolTimeoutMs: this.#options.toolTimeoutMs,
        checkpoints: this.#review?.checkpointsOf(ledger.session),
        transcript: this.#transcriptWatch(),
      },
      startedOn,
    );
    this.#sessions.set(ledger.sessionId, session);
    this.#known.add(ledger.sessionId);
    return session;
  }

  #transcriptWatch(): TranscriptWatch | undefined {
    const transcripts = this.#transcripts;
    if (transcripts === undefined) return undefined;
    return new TranscriptWatch({ transcripts, turns: (sessionId) => this.#options.store.listTurns(sessionId) });
  }

  /** The loaded session, loading it from the store once; `not_found` when there is none. */
  async #session(sessionId: string): Promise<HostSession> {
    if (this.#deleting.has(sessionId)) throw notFound('session');
    const loaded = this.#sessions.get(sessionId);
    if (loaded !== undefined) return loaded;
    let loading = this.#loading.get(sessionId);
    if (loading === undefined) {
      loading = this.#options.ledgers
        .load(sessionId)
        .then((ledger) =>
          ledger === undefined ? undefined : (this.#sessions.get(sessionId) ?? this.#register(ledger, undefined)),
        )
        .finally(() => this.#loading.delete(sessionId));
      this.#loading.set(sessionId, loading);
    }
    const session = await loading;
    if (session === undefined) throw notFound('session');
    return session;
  }

  async #userTask(taskId: string): Promise<Task> {
    const task = await this.#options.store.getTask(taskId);
    if (task === undefined) throw notFound('task');
    if (task.source === 'sdk') throw new HostError('conflict', "the agent's plan is changed by the agent, not by hand");
    return task;
  }

  #reviewOf(): SessionReview {
    if (this.#review === undefined) throw new HostError('not_found', 'checkpoints are off on this host');
    return this.#review;
  }

  #worktreesOf(): SessionWorktrees {
    if (this.#worktrees === undefined) throw new HostError('not_found', 'worktrees are off on this host');
    return this.#worktrees;
  }

  #assertRunning(): void {
    if (this.#closing !== undefined) throw new HostError('sidecar_unavailable', 'the host is shutting down');
  }
}

function notFound(what: string): HostError {
  return new HostError('not_found', `no such ${what}`);
}
