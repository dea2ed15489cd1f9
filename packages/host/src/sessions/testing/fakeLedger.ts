import type { CreateTaskBody, Interaction, PatchTaskBody, Task, TurnError } from '@outrigger/host-api';
import type { SidecarEvent } from '@outrigger/protocol';
import type { NewForkInit, NewSessionInit } from '../../projection/projectedSessionLedger.ts';
import type { SessionCommand } from '../../projection/sessionCommand.ts';
import { isTerminalTurn } from '../../projection/sessionStatus.ts';
import type { ClientMessageHit } from '../../store/hostStore.ts';
import type { AttachmentRecord, SessionRecord, TurnRecord } from '../../store/records.ts';
import { testInteraction, testSession, testTurn, testUserTask } from '../../store/testRecords.ts';
import type { AppliedSidecarEvent, SessionLedger, SupersedeResolution } from '../sessionLedger.ts';

/** One durable change the fake recorded, named like the host event it stands for. */
export interface FakeEntry {
  readonly kind: string;
  readonly turnId?: string;
  readonly detail?: unknown;
}

/**
 * A session ledger in memory, for the runtime's state-machine tests: it keeps turns, interactions and
 * client message ids the way the projector would, records each durable change as an entry (`done`,
 * `queue`, `turn_started`, …) and serves the store reads the runtime makes. It is not the projector:
 * rows and payloads are the projector's tests' business.
 */
export class FakeLedger implements SessionLedger {
  readonly sessionId: string;
  session: SessionRecord;
  readonly turns = new Map<string, TurnRecord>();
  readonly interactions = new Map<string, Interaction>();
  readonly attachments = new Map<string, AttachmentRecord>();
  readonly clientMessages = new Map<string, ClientMessageHit>();
  readonly entries: FakeEntry[] = [];
  /** Every command applied, in order (a refused one is not recorded). */
  readonly commands: SessionCommand[] = [];
  /** The event types of each `applySidecarEvents` call, in order. */
  readonly batches: string[][] = [];
  /** Makes the next write throw, as a refusing store would. */
  failNextWrite = false;
  #ordinal = 0;

  constructor(session: SessionRecord) {
    this.sessionId = session.id;
    this.session = session;
  }

  turn(turnId: string): TurnRecord | undefined {
    return this.turns.get(turnId);
  }
  runningUserTurn(): TurnRecord | undefined {
    return [...this.turns.values()].find((turn) => turn.kind === 'user' && turn.status === 'running');
  }
  liveTurns(): readonly TurnRecord[] {
    return [...this.turns.values()].filter((turn) => turn.status === 'running');
  }
  queuedTurns(): readonly TurnRecord[] {
    return [...this.turns.values()].filter((turn) => turn.status === 'queued').sort((a, b) => a.ordinal - b.ordinal);
  }
  hasTranscript(): boolean {
    return [...this.turns.values()].some((turn) => turn.providerTurnId !== null);
  }

  /** Entries of one kind (and turn), in order. */
  of(kind: string, turnId?: string): FakeEntry[] {
    return this.entries.filter((entry) => entry.kind === kind && (turnId === undefined || entry.turnId === turnId));
  }

  /** One by one: a write refused at the first event leaves nothing applied, as the real ledger's batch does. */
  async applySidecarEvents(events: readonly SidecarEvent[]): Promise<AppliedSidecarEvent[]> {
    this.batches.push(events.map((event) => event.type));
    const applied: AppliedSidecarEvent[] = [];
    for (const event of events) applied.push(await this.applySidecarEvent(event));
    return applied;
  }

  async applySidecarEvent(event: SidecarEvent): Promise<AppliedSidecarEvent> {
    this.#write();
    const payload = event.payload as Record<string, unknown>;
    const turnId = typeof payload.turnId === 'string' ? payload.turnId : undefined;
    const turn = turnId === undefined ? undefined : this.turns.get(turnId);
    switch (event.type) {
      case 'session_started':
      case 'session_state':
        this.session = { ...this.session, resumeCursor: event.payload.resumeCursor };
        return { endedTurnIds: [] };
      case 'provider_turn_identity_resolved':
        if (
          turn !== undefined &&
          turn.providerTurnId !== null &&
          turn.providerTurnId !== event.payload.providerTurnId
        ) {
          return this.#violate(turn);
        }
        if (turn !== undefined) this.#put({ ...turn, providerTurnId: event.payload.providerTurnId });
        this.entries.push({ kind: 'binding', turnId });
        return { endedTurnIds: [] };
      case 'turn_started':
        this.#put(this.#newTurn(event.payload.turnId, 'synthetic', 'running', null));
        this.entries.push({ kind: 'turn_started', turnId: event.payload.turnId, detail: 'synthetic' });
        return { endedTurnIds: [] };
      case 'assistant_delta':
        if (turn !== undefined && turn.kind === 'user' && turn.providerTurnId === null) return this.#violate(turn);
        if (turn !== undefined && !isTerminalTurn(turn)) this.entries.push({ kind: 'text', turnId });
        return { endedTurnIds: [] };
      case 'approval_requested':
      case 'user_input_requested':
        this.interactions.set(
          event.payload.requestId,
          testInteraction(this.sessionId, event.payload.requestId, {
            turnId: event.payload.turnId,
            toolName: event.payload.toolName,
            tool_use_id: event.payload.toolCallId,
            input: event.payload.input,
            options: event.payload.options,
            createdAt: 0,
          }),
        );
        this.entries.push({ kind: 'permission_request', turnId, detail: event.payload.requestId });
        return { endedTurnIds: [] };
      case 'approval_resolved':
      case 'user_input_resolved': {
        const { requestId, action, optionId, payload: answerPayload } = event.payload;
        await this.apply({
          type: 'interactionAnswered',
          requestId,
          answer: { action, optionId, payload: answerPayload },
        });
        return { endedTurnIds: [] };
      }
      case 'turn_completed':
      case 'turn_failed':
      case 'turn_canceled': {
        if (turn === undefined || isTerminalTurn(turn)) return { endedTurnIds: [] };
        const status =
          event.type === 'turn_completed' ? 'completed' : event.type === 'turn_failed' ? 'failed' : 'canceled';
        this.#end(turn, status, event.type === 'turn_failed' ? { message: event.payload.error, code: null } : null);
        return { endedTurnIds: [turn.id] };
      }
      default:
        return { endedTurnIds: [] };
    }
  }

  /** Records the command, then changes what the runtime reads back the way the projector would. */
  async apply(command: SessionCommand): Promise<void> {
    this.#write();
    this.commands.push(command);
    switch (command.type) {
      case 'acceptTurn': {
        const { turnId, prompt, queued } = command;
        this.#put({
          ...this.#newTurn(turnId, 'user', queued ? 'queued' : 'running', prompt.prompt),
          input: prompt.input,
          clientMessageId: prompt.clientMessageId,
        });
        for (const attachment of prompt.attachments) this.attachments.set(attachment.id, attachment);
        if (prompt.clientMessageId !== null) this.clientMessages.set(prompt.clientMessageId, { turnId, steer: false });
        this.entries.push({ kind: queued ? 'queue' : 'turn_started', turnId, detail: prompt.prompt });
        return;
      }
      case 'startQueuedTurn': {
        const turn = this.#require(command.turnId);
        this.#put({ ...turn, status: 'running', paused: false });
        this.entries.push({ kind: 'turn_started', turnId: turn.id, detail: turn.prompt });
        return;
      }
      case 'pauseQueue':
      case 'resumeQueue': {
        const paused = command.type === 'pauseQueue';
        for (const turn of this.queuedTurns()) this.#put({ ...turn, paused });
        this.entries.push({ kind: paused ? 'queue_paused' : 'queue_resumed' });
        return;
      }
      case 'editQueuedTurn': {
        const turn = this.#require(command.turnId);
        this.#put({ ...turn, prompt: command.prompt });
        this.entries.push({ kind: 'queue_edited', turnId: turn.id, detail: command.prompt });
        return;
      }
      case 'steer': {
        const { turnId, prompt } = command;
        if (prompt.clientMessageId !== null) this.clientMessages.set(prompt.clientMessageId, { turnId, steer: true });
        this.entries.push({ kind: 'user_message', turnId, detail: prompt.prompt });
        return;
      }
      case 'cancelQueuedTurn': {
        const turn = this.#require(command.turnId);
        this.#put({ ...turn, status: 'canceled', cancelDisposition: 'pre_accept' });
        this.entries.push(
          { kind: 'turn_canceled', turnId: turn.id, detail: 'pre_accept' },
          { kind: 'done', turnId: turn.id, detail: 'canceled' },
        );
        return;
      }
      case 'failTurn': {
        const turn = this.#require(command.turnId);
        if (!isTerminalTurn(turn)) this.#end(turn, 'failed', command.error);
        return;
      }
      case 'sidecarExited':
        this.#supersedePending('sidecar_exited');
        for (const turn of this.liveTurns()) this.#end(turn, 'failed', command.error);
        return;
      case 'recoverAfterRestart':
        this.#supersedePending('host_restarted');
        for (const turn of this.liveTurns()) {
          this.#end(turn, 'interrupted', {
            message: 'the host restarted',
            code: 'host_restarted',
            apiErrorStatus: null,
          });
        }
        return;
      case 'interactionAnswered': {
        const { requestId, answer } = command;
        const interaction = this.interactions.get(requestId);
        if (interaction === undefined || interaction.status !== 'pending') return;
        this.interactions.set(requestId, { ...interaction, status: 'answered', answer, resolution: 'answered' });
        this.entries.push({ kind: 'permission_resolved', turnId: interaction.turnId, detail: 'answered' });
        return;
      }
      case 'interactionSuperseded': {
        const interaction = this.interactions.get(command.requestId);
        if (interaction?.status === 'pending') this.#supersede(interaction, command.resolution);
        return;
      }
      case 'bindTurn':
        this.#put({ ...this.#require(command.turnId), providerTurnId: command.providerTurnId });
        this.entries.push({ kind: 'binding', turnId: command.turnId, detail: 'from_cancel' });
        return;
      case 'rename':
        this.session = { ...this.session, title: command.title, titleSource: 'user' };
        this.entries.push({ kind: 'title', detail: command.title });
        return;
      case 'changeSettings':
        this.session = { ...this.session, settings: { ...this.session.settings, ...command.patch } };
        this.entries.push({ kind: 'settings', detail: command.patch });
        return;
      case 'close':
        this.session = { ...this.session, closed: true };
        this.entries.push({ kind: 'closed' });
        return;
      case 'archive':
        this.session = { ...this.session, archivedAt: command.archived ? 1 : null };
        return;
      case 'toolTimedOut':
        this.entries.push({ kind: 'tool_timeout', turnId: command.turnId, detail: command.toolUseId });
        return;
    }
  }

  readonly tasks = new Map<string, Task>();

  async createUserTask(body: Omit<CreateTaskBody, 'session_id'>): Promise<Task> {
    this.#write();
    const task = testUserTask(this.sessionId, `user-task-${this.tasks.size + 1}`, {
      title: body.title,
      status: body.status ?? 'pending',
      description: body.description ?? null,
      sort_order: this.tasks.size,
      created_at: 0,
      updated_at: 0,
    });
    this.tasks.set(task.id, task);
    return task;
  }

  async updateUserTask(taskId: string, patch: PatchTaskBody): Promise<Task> {
    this.#write();
    const task = { ...this.tasks.get(taskId)!, ...patch } as Task;
    this.tasks.set(taskId, task);
    return task;
  }

  async deleteUserTask(taskId: string): Promise<void> {
    this.#write();
    this.tasks.delete(taskId);
  }

  /** The store reads the runtime makes, answered from the same state. */
  readonly store = {
    getTurn: async (_sessionId: string, turnId: string) => this.turns.get(turnId),
    getInteraction: async (_sessionId: string, requestId: string) => this.interactions.get(requestId),
    findClientMessage: async (_sessionId: string, clientMessageId: string) => this.clientMessages.get(clientMessageId),
    getAttachment: async (attachmentId: string) => this.attachments.get(attachmentId),
  };

  #violate(turn: TurnRecord): AppliedSidecarEvent {
    this.#end(turn, 'failed', { message: 'identity violation', code: 'identity_violation', apiErrorStatus: null });
    return { endedTurnIds: [turn.id], identityViolationTurnId: turn.id };
  }

  #end(turn: TurnRecord, status: TurnRecord['status'], error: Partial<TurnError> | null): void {
    this.#put({
      ...turn,
      status,
      error: error === null ? null : { message: '', code: null, apiErrorStatus: null, ...error },
    });
    for (const interaction of this.interactions.values()) {
      if (interaction.turnId === turn.id && interaction.status === 'pending')
        this.#supersede(interaction, 'turn_ended');
    }
    this.entries.push({
      kind: 'done',
      turnId: turn.id,
      detail: status === 'failed' ? (error?.code ?? 'failed') : status,
    });
  }

  #supersedePending(resolution: SupersedeResolution): void {
    for (const interaction of this.interactions.values()) {
      if (interaction.status === 'pending') this.#supersede(interaction, resolution);
    }
  }

  #supersede(interaction: Interaction, resolution: SupersedeResolution): void {
    this.interactions.set(interaction.requestId, { ...interaction, status: 'superseded', resolution });
    this.entries.push({ kind: 'permission_resolved', turnId: interaction.turnId, detail: resolution });
  }

  #newTurn(id: string, kind: 'user' | 'synthetic', status: TurnRecord['status'], prompt: string | null): TurnRecord {
    return testTurn(this.sessionId, id, this.#ordinal++, { kind, status, prompt });
  }

  #put(turn: TurnRecord): void {
    this.turns.set(turn.id, turn);
  }

  #require(turnId: string): TurnRecord {
    const turn = this.turns.get(turnId);
    if (turn === undefined) throw new Error(`fake ledger: no turn ${turnId}`);
    return turn;
  }

  #write(): void {
    if (!this.failNextWrite) return;
    this.failNextWrite = false;
    throw new Error('store refused the write');
  }
}

/**
 * Session ledgers kept in memory across "restarts": a new manager over the same `FakeLedgers` finds
 * every session as the previous one left it, like a store would.
 */
export class FakeLedgers {
  readonly ledgers = new Map<string, FakeLedger>();

  async create(init: NewSessionInit): Promise<FakeLedger> {
    const ledger = new FakeLedger(
      testSession(init.id, {
        cwd: init.cwd,
        title: init.title ?? 'work',
        settings: init.settings,
        providerSessionId: init.providerSessionId,
      }),
    );
    ledger.entries.push({ kind: 'session_created' });
    this.ledgers.set(init.id, ledger);
    return ledger;
  }

  async fork(init: NewForkInit): Promise<FakeLedger> {
    const ledger = await this.create(init);
    ledger.session = { ...ledger.session, forkedFrom: init.forkedFrom, resumeCursor: init.resumeCursor };
    return ledger;
  }

  async load(sessionId: string): Promise<FakeLedger | undefined> {
    return this.ledgers.get(sessionId);
  }

  /** The store reads of the session manager, answered from the ledgers. */
  readonly store = {
    listSessions: async () => [...this.ledgers.values()].map((ledger) => ledger.session),
    getSession: async (id: string) => this.ledgers.get(id)?.session,
    listTurns: async (id: string, filter?: { statuses?: readonly string[] }) =>
      [...(this.ledgers.get(id)?.turns.values() ?? [])].filter(
        (turn) => filter?.statuses === undefined || filter.statuses.includes(turn.status),
      ),
    listInteractions: async (filter: { sessionId?: string; status?: string }) =>
      [...this.ledgers.values()]
        .filter((ledger) => filter.sessionId === undefined || ledger.sessionId === filter.sessionId)
        .flatMap((ledger) => [...ledger.interactions.values()])
        .filter((interaction) => filter.status === undefined || interaction.status === filter.status),
    getTurn: async (id: string, turnId: string) => this.ledgers.get(id)?.turns.get(turnId),
    getInteraction: async (id: string, requestId: string) => this.ledgers.get(id)?.interactions.get(requestId),
    findClientMessage: async (id: string, clientMessageId: string) =>
      this.ledgers.get(id)?.clientMessages.get(clientMessageId),
    getAttachment: async (attachmentId: string) =>
      [...this.ledgers.values()].map((ledger) => ledger.attachments.get(attachmentId)).find(Boolean),
    getTask: async (taskId: string) =>
      [...this.ledgers.values()].map((ledger) => ledger.tasks.get(taskId)).find(Boolean),
    listTasks: async (id?: string) =>
      [...this.ledgers.values()]
        .filter((ledger) => id === undefined || ledger.sessionId === id)
        .flatMap((ledger) => [...ledger.tasks.values()]),
    closed: false,
    close: async () => {
      this.store.closed = true;
    },
  };
}
