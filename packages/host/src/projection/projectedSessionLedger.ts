import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type {
  ContinuedFrom,
  CreateTaskBody,
  PatchTaskBody,
  SessionSettings,
  SessionWorktree,
  Task,
} from '@outrigger/host-api';
import type { ConfigOption, ProviderTurnBinding, ResumeCursor, SidecarEvent } from '@outrigger/protocol';
import { HostError } from '../hostError.ts';
import { coalescePuts } from '../store/coalescePuts.ts';
import type { CommitResult, HostStoreReader, WriteUnit } from '../store/hostStore.ts';
import type { SessionRecord, TaskRecord, TurnRecord } from '../store/records.ts';
import type { CommandFacts, SessionCommand } from './sessionCommand.ts';
import { type Projection, SessionProjector } from './sessionProjector.ts';
import { changeUserTask, planOfTurns, syncSdkTasks, taskUnit, withTaskChange } from './taskProjection.ts';

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
  /** A turn broke the *identity barrier*: it was failed; the sidecar must stop it. */
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
    let units: WriteUnit[] = [];
    try {
      for (const event of events) {
        // Rows of earlier events of this batch stay in memory (no eviction) until the batch is stored.
        await this.#hydrateFor(event);
        const projection = projector.projectSidecarEvent(event, this.#now());
        if (!projection.empty) projector.accept(projection, { evict: false });
        projections.push(projection);
      }
      units = await this.#withTaskSyncs(projections.filter((projection) => !projection.empty));
      if (units.length > 0) {
        seqBefore = await this.#deps.store.lastSessionSeq(this.sessionId);
        await this.#deps.committer.commitAll(coalescePuts(units));
      }
    } catch (error) {
      await this.#reload();
      if (seqBefore === undefined || !(await this.#keptSince(seqBefore, units))) throw error;
    }
    projector.evict();
    return projections.map(appliedOf);
  }

  /** After a failed commit: whether the store has the batch anyway (its session events are there). */
  async #keptSince(seqBefore: number, units: readonly WriteUnit[]): Promise<boolean> {
    const appended = units.some((unit) => (unit.sessionEvents?.length ?? 0) > 0);
    if (!appended) return false;
    const seqNow = await this.#deps.store.lastSessionSeq(this.sessionId).catch(() => seqBefore);
    return seqNow > seqBefore;
  }

  async apply(command: SessionCommand): Promise<void> {
    const facts = await this.#load(command);
    await this.#run((projector, now) => projector.project(command, now, facts));
  }

  /** A user task: after the session's other user tasks; the sync of the agent's plan never touches it. */
  async createUserTask(body: Omit<CreateTaskBody, 'session_id'>): Promise<Task> {
    const tasks = await this.#tasks();
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
    await this.#deps.committer.commit(taskUnit(changeUserTask(this.sessionId, tasks, { put: task })));
    return task;
  }

  async updateUserTask(taskId: string, patch: PatchTaskBody): Promise<Task> {
    const tasks = await this.#tasks();
    const task = userTaskIn(tasks, taskId);
    const updated: Task = {
      ...task,
      ...(patch.title === undefined ? {} : { title: patch.title }),
      ...(patch.description === undefined ? {} : { description: patch.description }),
      ...(patch.status === undefined ? {} : { status: patch.status }),
      ...(patch.sort_order === undefined ? {} : { sort_order: patch.sort_order }),
      updated_at: this.#now(),
    };
    await this.#deps.committer.commit(taskUnit(changeUserTask(this.sessionId, tasks, { put: updated })));
    return updated;
  }

  async deleteUserTask(taskId: string): Promise<void> {
    const tasks = await this.#tasks();
    userTaskIn(tasks, taskId);
    await this.#deps.committer.commit(taskUnit(changeUserTask(this.sessionId, tasks, { deleteId: taskId })));
  }

  // ─── internals ───────────────────────────────────────────────────────────────────────────────

  /** Loads the rows the command names that the projector let go of, and the facts it needs from the store. */
  async #load(command: SessionCommand): Promise<CommandFacts> {
    switch (command.type) {
      case 'startQueuedTurn': {
        await this.#hydrateTurn(command.turnId);
        const imageBytes = new Map<string, number>();
        for (const block of this.#projector.turn(command.turnId)?.input ?? []) {
          if (block.type !== 'image') continue;
          const attachment = await this.#deps.store.getAttachment(block.attachmentId);
          if (attachment !== undefined) imageBytes.set(block.attachmentId, attachment.bytes.byteLength);
        }
        return { imageBytes };
      }
      case 'cancelQueuedTurn':
      case 'editQueuedTurn':
      case 'failTurn':
      case 'bindTurn':
      case 'outsideChanges':
        await this.#hydrateTurn(command.turnId);
        return {};
      case 'interactionAnswered':
      case 'interactionSuperseded':
        await this.#hydrateInteraction(command.requestId);
        return {};
      default:
        return {};
    }
  }

  async #run(project: (projector: SessionProjector, now: number) => Projection): Promise<Projection> {
    const projector = this.#projector;
    const projection = project(projector, this.#now());
    if (projection.empty) return projection;
    try {
      const [unit] = await this.#withTaskSyncs([projection]);
      await this.#deps.committer.commit(unit!);
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

  /**
   * The session's task rows, which a task change starts from. Read from the store, not kept: every
   * task write of this session (the plan's sync, the HTTP task routes through `HostSession`) runs
   * through this ledger on the session's serial queue, so no write can come between this read and the
   * commit built on it, and a refused commit leaves no copy that ran ahead of the store.
   */
  #tasks(): Promise<TaskRecord[]> {
    return this.#deps.store.listTasks(this.sessionId);
  }

  /** The units of projections, a plan's sync added; in a batch each sync starts from the rows the one before left. */
  async #withTaskSyncs(projections: readonly Projection[]): Promise<WriteUnit[]> {
    let tasks: readonly TaskRecord[] | undefined;
    const units: WriteUnit[] = [];
    for (const { unit, draft } of projections) {
      if (draft.sdkPlan === undefined) {
        units.push(unit);
        continue;
      }
      const change = syncSdkTasks(this.sessionId, tasks ?? (await this.#tasks()), draft.sdkPlan);
      tasks = change.tasks;
      units.push(withTaskChange(unit, change));
    }
    return units;
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

/** A user task of the session; the agent's plan is not edited by hand. */
function userTaskIn(tasks: readonly TaskRecord[], taskId: string): TaskRecord {
  const task = tasks.find((row) => row.id === taskId);
  if (task === undefined) throw new HostError('not_found', 'no such task');
  if (task.source === 'sdk') throw new HostError('conflict', "the agent's plan is changed by the agent, not by hand");
  return task;
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

/** Events a fork reads at a time from its source's log (looking for the plan at the fork turn). */
const FORK_EVENT_PAGE = 1000;

/** A session to create: `SessionLedgers.create`. */
export interface NewSessionInit {
  readonly id: string;
  readonly cwd: string;
  readonly title?: string;
  readonly settings: SessionSettings;
  readonly providerSessionId: string;
  /** The worktree the host made for the session (`createSession` with `worktree: true`). */
  readonly worktree?: SessionWorktree;
  /** A session that continues a Claude Code session (`sessions/historyContinue.ts`): what, and where Claude resumes. */
  readonly continuedFrom?: ContinuedFrom;
  readonly resumeCursor?: ResumeCursor;
}

/** A fork to create (its transcript is the source's up to and including a turn): `SessionLedgers.fork`. */
export interface NewForkInit extends NewSessionInit {
  readonly forkedFrom: { readonly sessionId: string; readonly turnId: string };
  readonly bindings: readonly ProviderTurnBinding[];
  /** The source transcript's provider turn ids (`inspect_fork_checkpoints`), in the order of `bindings`. */
  readonly sourceProviderTurnIds: readonly string[];
  readonly resumeCursor: ResumeCursor;
  /**
   * The source's settings choices (model list, …) until the fork's own start reports its own: the fork
   * runs in the same directory with the same Claude Code, and its settings bar is whole at once.
   */
  readonly configOptions?: readonly ConfigOption[];
  /** The source's slash commands, for the same reason: the fork's `/` list is whole before its first start. */
  readonly slashCommands?: SessionRecord['slashCommands'];
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
   * (`fork_session`'s `targetProviderTurnBindings`: the binding at a source provider turn's position in
   * `sourceProviderTurnIds`, so a guide prompt listed between two turns shifts nothing) and provider
   * session, so a fork of the fork works too.
   */
  async fork(init: NewForkInit): Promise<ProjectedSessionLedger> {
    const sourceTurns = await this.#deps.store.listTurns(init.forkedFrom.sessionId);
    const through = sourceTurns.find((turn) => turn.id === init.forkedFrom.turnId);
    if (through === undefined) throw new HostError('not_found', 'no such turn in the source session');
    const accepted = sourceTurns.filter((turn) => turn.ordinal <= through.ordinal && turn.providerTurnId !== null);
    const reboundTurns = accepted.flatMap((turn) => {
      const position = turn.providerTurnId === null ? -1 : init.sourceProviderTurnIds.indexOf(turn.providerTurnId);
      const binding = position === -1 ? undefined : init.bindings[position];
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
      slashCommands: (init.slashCommands ?? []).map((command) => ({ ...command })),
    };
    const { unit } = SessionProjector.createUnit(session, { throughTurnId: through.id, reboundTurns });
    // The plan's tasks as they stood at the fork turn (a plan a later turn of the source made is not the fork's).
    const copied = sourceTurns.filter((turn) => turn.ordinal <= through.ordinal).map((turn) => turn.id);
    const plan = await this.#planOfTurns(init.forkedFrom.sessionId, new Set(copied));
    await this.#deps.committer.commit(
      plan === undefined ? unit : withTaskChange(unit, syncSdkTasks(session.id, [], { ...plan, now })),
    );
    const records = await this.#deps.store.loadProjectionState(session.id);
    if (records === undefined) throw new HostError('internal', 'the forked session is missing after its commit');
    return new ProjectedSessionLedger(this.#deps, new SessionProjector(records));
  }

  /** `planOfTurns` over the source's whole event log, read a page at a time. */
  async #planOfTurns(sessionId: string, turnIds: ReadonlySet<string>) {
    let plan: ReturnType<typeof planOfTurns>;
    let afterSeq = 0;
    for (;;) {
      const page = await this.#deps.store.readSessionEvents(sessionId, afterSeq, FORK_EVENT_PAGE);
      plan = planOfTurns(page, turnIds) ?? plan;
      if (page.length < FORK_EVENT_PAGE) return plan;
      afterSeq = page.at(-1)?.data.seq ?? afterSeq;
    }
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
    queuePaused: false,
    lastError: null,
    settings: { ...init.settings },
    effectiveModel: null,
    configOptions: [],
    slashCommands: [],
    providerSessionId: init.providerSessionId,
    resumeCursor: init.resumeCursor ?? null,
    usage: { contextWindow: null, inputTokens: 0, outputTokens: 0, totalCostUsd: null },
    backgroundTasks: [],
    forkedFrom: null,
    continuedFrom: init.continuedFrom ?? null,
    worktree: init.worktree ?? null,
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
    lastActivityAt: now,
  };
}
