import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type {
  CreateTaskBody,
  InteractionAnswer,
  PatchSettingsBody,
  PatchTaskBody,
  SessionSettings,
  Task,
  TurnError,
} from '@outrigger/host-api';
import type { ConfigOption, ProviderTurnBinding, ResumeCursor, SidecarEvent } from '@outrigger/protocol';
import { HostError } from '../hostError.ts';
import { coalescePuts } from '../store/coalescePuts.ts';
import type { CommitResult, HostStoreReader, WriteUnit } from '../store/hostStore.ts';
import type { SessionRecord, TurnRecord } from '../store/records.ts';
import { type Projection, type PromptInput, SessionProjector, type SupersedeResolution } from './sessionProjector.ts';

/** Persist, then publish: `CommitPublisher.commit` / `commitAll`. */
export interface UnitCommitter {
  commit(unit: WriteUnit): Promise<CommitResult>;
  /** The units in one transaction: all committed and then published in order, or none (it rejects). */
  commitAll(units: readonly WriteUnit[]): Promise<CommitResult[]>;
}

export interface LedgerDeps {
  readonly store: HostStoreReader;
  readonly committer: UnitCommitter;
  readonly now?: () => number;
  readonly newId?: () => string;
}

/** What applying one sidecar event did that the runtime must act on. */
export interface AppliedSidecarEvent {
  /** Turns this event ended (their `done` is committed). */
  readonly endedTurnIds: readonly string[];
  /** A turn broke the identity barrier (invariant 2): it was failed; the sidecar must stop it. */
  readonly identityViolationTurnId?: string;
  /** Why the event changed nothing although it named something: for the runtime's log (never content). */
  readonly dropped?: string;
}

/**
 * The runtime's `SessionLedger` (src/sessions/sessionLedger.ts) over the session's projector, the
 * store and the hub: each method projects, commits the unit through the committer (persist, then
 * publish) and only then folds it into the projector. A refused commit throws the store's error and
 * reloads the projector from the store, so its state is always what the store holds. Rows a late
 * event names but the projector let go of are read back from the store first. One writer per
 * session: the runtime calls these on the session's serial queue.
 */
export class ProjectedSessionLedger {
  readonly sessionId: string;
  readonly #deps: LedgerDeps;
  readonly #now: () => number;
  readonly #newId: () => string;
  #projector: SessionProjector;

  constructor(deps: LedgerDeps, projector: SessionProjector) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#newId = deps.newId ?? randomUUID;
    this.#projector = projector;
    this.sessionId = projector.session.id;
  }

  get session(): SessionRecord {
    return this.#projector.session;
  }

  turn(turnId: string): TurnRecord | undefined {
    return this.#projector.turn(turnId);
  }

  runningUserTurn(): TurnRecord | undefined {
    return this.#projector.runningUserTurn();
  }

  liveTurns(): readonly TurnRecord[] {
    return this.#projector.liveTurns();
  }

  queuedTurns(): readonly TurnRecord[] {
    return this.#projector.queuedTurns();
  }

  hasTranscript(): boolean {
    return this.#projector.hasTranscript();
  }

  async applySidecarEvent(event: SidecarEvent): Promise<AppliedSidecarEvent> {
    await this.#hydrateFor(event);
    return appliedOf(await this.#run((projector, now) => projector.projectSidecarEvent(event, now)));
  }

  /**
   * Several events that arrived together (one stdout chunk, or while the previous ones were being
   * committed) in one go: projected in order, each on the state the ones before it left, and their units
   * committed as ONE transaction (a row several of them rewrite written once: `coalescePuts`), then
   * published in order. Same outcome as applying them one by one. When anything fails (a projection
   * throws, the store refuses) the projector is reloaded from the store and the error is thrown: the store
   * has all of the batch or none of it. A store that kept the batch without confirming it (its session seq
   * moved past the batch's first event) is a success: the batch is not applied again.
   */
  async applySidecarEvents(events: readonly SidecarEvent[]): Promise<AppliedSidecarEvent[]> {
    const projector = this.#projector;
    const projections: Projection[] = [];
    let seqBefore: number | undefined;
    try {
      for (const event of events) {
        // Rows of earlier events of this batch stay in memory (no eviction) until the batch is stored.
        await this.#hydrateFor(event);
        const projection = projector.projectSidecarEvent(event, this.#now());
        if (!projection.empty) projector.accept(projection, { evict: false });
        projections.push(projection);
      }
      const units = projections.filter((projection) => !projection.empty).map((projection) => projection.unit);
      if (units.length > 0) {
        seqBefore = await this.#deps.store.lastSessionSeq(this.sessionId);
        await this.#deps.committer.commitAll(coalescePuts(units));
      }
    } catch (error) {
      await this.#reload();
      if (seqBefore === undefined || !(await this.#keptSince(seqBefore, projections))) throw error;
    }
    projector.evict();
    return projections.map(appliedOf);
  }

  /** After a failed commit: whether the store has the batch anyway (its session events are there). */
  async #keptSince(seqBefore: number, projections: readonly Projection[]): Promise<boolean> {
    const appended = projections.some(
      ({ unit }) => (unit.sessionEvents?.length ?? 0) > 0 || unit.sdkTaskSync !== undefined,
    );
    if (!appended) return false;
    const seqNow = await this.#deps.store.lastSessionSeq(this.sessionId).catch(() => seqBefore);
    return seqNow > seqBefore;
  }

  async acceptTurn(turnId: string, prompt: PromptInput, queued: boolean): Promise<void> {
    await this.#run((projector, now) => projector.project({ type: 'acceptTurn', turnId, prompt, queued }, now));
  }

  async startQueuedTurn(turnId: string): Promise<void> {
    await this.#hydrateTurn(turnId);
    const turn = this.#projector.turn(turnId);
    const sizes = new Map<string, number>();
    for (const block of turn?.input ?? []) {
      if (block.type !== 'image') continue;
      const attachment = await this.#deps.store.getAttachment(block.attachmentId);
      if (attachment !== undefined) sizes.set(block.attachmentId, attachment.bytes.byteLength);
    }
    await this.#run((projector, now) => projector.project({ type: 'startQueuedTurn', turnId }, now, { imageBytes: sizes }));
  }

  async steer(turnId: string, prompt: PromptInput): Promise<void> {
    await this.#run((projector, now) => projector.project({ type: 'steer', turnId, prompt }, now));
  }

  async cancelQueuedTurn(turnId: string): Promise<void> {
    await this.#hydrateTurn(turnId);
    await this.#run((projector, now) => projector.project({ type: 'cancelQueuedTurn', turnId }, now));
  }

  async failTurn(turnId: string, error: TurnError): Promise<void> {
    await this.#hydrateTurn(turnId);
    await this.#run((projector, now) => projector.project({ type: 'failTurn', turnId, error }, now));
  }

  async sidecarExited(error: TurnError): Promise<void> {
    await this.#run((projector, now) => projector.project({ type: 'sidecarExited', error }, now));
  }

  async recoverAfterRestart(): Promise<void> {
    await this.#run((projector, now) => projector.project({ type: 'recoverAfterRestart' }, now));
  }

  async interactionAnswered(requestId: string, answer: InteractionAnswer): Promise<void> {
    await this.#hydrateInteraction(requestId);
    await this.#run((projector, now) => projector.project({ type: 'interactionAnswered', requestId, answer }, now));
  }

  async interactionSuperseded(requestId: string, resolution: SupersedeResolution): Promise<void> {
    await this.#hydrateInteraction(requestId);
    await this.#run((projector, now) => projector.project({ type: 'interactionSuperseded', requestId, resolution }, now));
  }

  async bindTurn(turnId: string, providerTurnId: string): Promise<void> {
    await this.#hydrateTurn(turnId);
    await this.#run((projector, now) => projector.project({ type: 'bindTurn', turnId, providerTurnId }, now));
  }

  async rename(title: string): Promise<void> {
    await this.#run((projector, now) => projector.project({ type: 'rename', title }, now));
  }

  async changeSettings(patch: PatchSettingsBody): Promise<void> {
    await this.#run((projector, now) => projector.project({ type: 'changeSettings', patch }, now));
  }

  async close(): Promise<void> {
    await this.#run((projector, now) => projector.project({ type: 'close' }, now));
  }

  async toolTimedOut(turnId: string, toolUseId: string, toolName: string, elapsedSeconds: number): Promise<void> {
    await this.#run((projector, now) => projector.project({ type: 'toolTimedOut', turnId, toolUseId, toolName, elapsedSeconds }, now));
  }

  /** A user task: after the session's other user tasks; the sync of the agent's plan never touches it. */
  async createUserTask(body: Omit<CreateTaskBody, 'session_id'>): Promise<Task> {
    const tasks = await this.#deps.store.listTasks(this.sessionId);
    const last = Math.max(-1, ...tasks.filter((task) => task.source === 'user').map((task) => task.sort_order));
    const now = this.#now();
    const task: Task = {
      id: `task-${this.#newId()}`,
      session_id: this.sessionId,
      title: body.title,
      status: body.status ?? 'pending',
      description: body.description ?? null,
      sort_order: last + 1,
      source: 'user',
      created_at: now,
      updated_at: now,
    };
    await this.#deps.committer.commit({ tasks: [task], tasksChanged: { sessionId: this.sessionId } });
    return task;
  }

  async updateUserTask(taskId: string, patch: PatchTaskBody): Promise<Task> {
    const task = await this.#userTask(taskId);
    const updated: Task = {
      ...task,
      ...(patch.title === undefined ? {} : { title: patch.title }),
      ...(patch.description === undefined ? {} : { description: patch.description }),
      ...(patch.status === undefined ? {} : { status: patch.status }),
      ...(patch.sort_order === undefined ? {} : { sort_order: patch.sort_order }),
      updated_at: this.#now(),
    };
    await this.#deps.committer.commit({ tasks: [updated], tasksChanged: { sessionId: this.sessionId } });
    return updated;
  }

  async deleteUserTask(taskId: string): Promise<void> {
    await this.#userTask(taskId);
    await this.#deps.committer.commit({ deleteTaskIds: [taskId], tasksChanged: { sessionId: this.sessionId } });
  }

  // ─── internals ───────────────────────────────────────────────────────────────────────────────

  async #run(project: (projector: SessionProjector, now: number) => Projection): Promise<Projection> {
    const projector = this.#projector;
    const projection = project(projector, this.#now());
    if (projection.empty) return projection;
    try {
      await this.#deps.committer.commit(projection.unit);
    } catch (error) {
      await this.#reload();
      throw error;
    }
    projector.accept(projection);
    return projection;
  }

  /** After a refused (or unacknowledged) commit: the projector starts again from what the store holds. */
  async #reload(): Promise<void> {
    const records = await this.#deps.store.loadProjectionState(this.sessionId).catch(() => undefined);
    if (records !== undefined) this.#projector = new SessionProjector(records);
  }

  async #userTask(taskId: string): Promise<Task> {
    const task = await this.#deps.store.getTask(taskId);
    if (task === undefined || task.session_id !== this.sessionId) throw new HostError('not_found', 'no such task');
    if (task.source === 'sdk') throw new HostError('conflict', "the agent's plan is changed by the agent, not by hand");
    return task;
  }

  async #hydrateFor(event: SidecarEvent): Promise<void> {
    const payload = event.payload as Record<string, unknown>;
    if (typeof payload.turnId === 'string') await this.#hydrateTurn(payload.turnId);
    for (const key of ['toolCallId', 'parentToolUseId'] as const) {
      const toolUseId = payload[key];
      if (typeof toolUseId === 'string' && toolUseId !== '' && !this.#projector.hasToolRow(toolUseId)) {
        const row = await this.#deps.store.getToolMessage(this.sessionId, toolUseId);
        if (row !== undefined) await this.#hydrateTurn(row.turnId, true);
      }
    }
    if (typeof payload.requestId === 'string') await this.#hydrateInteraction(payload.requestId);
  }

  async #hydrateTurn(turnId: string, force = false): Promise<void> {
    if (!force && this.#projector.turn(turnId) !== undefined) return;
    const turn = this.#projector.turn(turnId) ?? (await this.#deps.store.getTurn(this.sessionId, turnId));
    if (turn === undefined) return;
    const messages = await this.#deps.store.listTurnMessages(this.sessionId, turnId);
    this.#projector.hydrate({ turns: [turn], messages });
  }

  async #hydrateInteraction(requestId: string): Promise<void> {
    if (this.#projector.interaction(requestId) !== undefined) return;
    const interaction = await this.#deps.store.getInteraction(this.sessionId, requestId);
    if (interaction !== undefined) this.#projector.hydrate({ interactions: [interaction] });
  }
}

function appliedOf(projection: Projection): AppliedSidecarEvent {
  return {
    endedTurnIds: projection.endedTurnIds,
    ...(projection.identityViolationTurnId === undefined
      ? {}
      : { identityViolationTurnId: projection.identityViolationTurnId }),
    ...(projection.dropped === undefined ? {} : { dropped: projection.dropped }),
  };
}

/** A session to create: `SessionLedgers.create`. */
export interface NewSessionInit {
  readonly id: string;
  readonly cwd: string;
  readonly title?: string;
  readonly settings: SessionSettings;
  readonly providerSessionId: string;
}

/** A fork to create (its transcript is the source's up to and including a turn): `SessionLedgers.fork`. */
export interface NewForkInit extends NewSessionInit {
  readonly forkedFrom: { readonly sessionId: string; readonly turnId: string };
  readonly bindings: readonly ProviderTurnBinding[];
  readonly resumeCursor: ResumeCursor;
  /**
   * The source's settings choices (model list, …) until the fork's own start reports its own: the fork
   * runs in the same directory with the same Claude Code, and its settings bar is whole at once.
   */
  readonly configOptions?: readonly ConfigOption[];
}

/** The runtime's `SessionLedgers`: where each session's ledger comes from. */
export class ProjectedSessionLedgers {
  readonly #deps: LedgerDeps;
  readonly #now: () => number;

  constructor(deps: LedgerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Commits the new session's row (with `status` and the host's `session`) and returns its ledger. */
  async create(init: NewSessionInit): Promise<ProjectedSessionLedger> {
    const session = newSessionRecord(init, this.#now());
    await this.#deps.committer.commit(SessionProjector.createUnit(session).unit);
    return new ProjectedSessionLedger(this.#deps, SessionProjector.fresh(session));
  }

  /**
   * A fork: the new session's row and, in the same transaction, the source's transcript up to and
   * including the fork turn, the copied turns keeping their ids but carrying the CHILD's bindings
   * (`fork_session`'s `targetProviderTurnBindings`, in order of the accepted copied turns) and
   * provider session, so a fork of the fork works too.
   */
  async fork(init: NewForkInit): Promise<ProjectedSessionLedger> {
    const sourceTurns = await this.#deps.store.listTurns(init.forkedFrom.sessionId);
    const through = sourceTurns.find((turn) => turn.id === init.forkedFrom.turnId);
    if (through === undefined) throw new HostError('not_found', 'no such turn in the source session');
    const accepted = sourceTurns.filter((turn) => turn.ordinal <= through.ordinal && turn.providerTurnId !== null);
    const reboundTurns = accepted.flatMap((turn, index) => {
      const binding = init.bindings[index];
      if (binding === undefined) return [];
      return [
        {
          ...turn,
          providerTurnId: binding.providerTurnId,
          checkpointMessageId: binding.checkpointMessageId,
          providerSessionId: init.providerSessionId,
        },
      ];
    });
    const now = this.#now();
    const session: SessionRecord = {
      ...newSessionRecord(init, now),
      forkedFrom: { ...init.forkedFrom },
      resumeCursor: init.resumeCursor,
      configOptions: [...(init.configOptions ?? [])],
    };
    await this.#deps.committer.commit(
      SessionProjector.createUnit(session, { throughTurnId: through.id, reboundTurns }).unit,
    );
    const records = await this.#deps.store.loadProjectionState(session.id);
    if (records === undefined) throw new HostError('internal', 'the forked session is missing after its commit');
    return new ProjectedSessionLedger(this.#deps, new SessionProjector(records));
  }

  async load(sessionId: string): Promise<ProjectedSessionLedger | undefined> {
    const records = await this.#deps.store.loadProjectionState(sessionId);
    return records === undefined ? undefined : new ProjectedSessionLedger(this.#deps, new SessionProjector(records));
  }
}

/** A session as it starts: idle, titled after its directory unless the user named it (then the name wins). */
function newSessionRecord(init: NewSessionInit, now: number): SessionRecord {
  const title = init.title ?? (basename(init.cwd) || init.cwd);
  return {
    id: init.id,
    title,
    titleSource: init.title === undefined ? 'default' : 'user',
    cwd: init.cwd,
    closed: false,
    status: 'idle',
    needsInputCount: 0,
    runningTurnId: null,
    runningTurnStartedAt: null,
    lastError: null,
    settings: { ...init.settings },
    effectiveModel: null,
    configOptions: [],
    providerSessionId: init.providerSessionId,
    resumeCursor: null,
    usage: { contextWindow: null, inputTokens: 0, outputTokens: 0, totalCostUsd: null },
    backgroundTasks: [],
    forkedFrom: null,
    createdAt: now,
    updatedAt: now,
    lastActivityAt: now,
  };
}
