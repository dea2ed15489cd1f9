import {
  type AgentContext,
  type ClientCapabilities,
  type ContentBlock,
  RequestError,
  type RequestPermissionOutcome,
  type SessionUpdate,
  type StopReason,
} from '@agentclientprotocol/sdk';
import {
  HostApiError,
  type HostClient,
  type Interaction,
  type MessageView,
  type SessionEvent,
  type SessionEventPayload,
  sessionEventPayloadSchemas,
} from '@outrigger/host-api';
import { answerOf, permissionRequestsOf } from '../permissions/permissionRequest.ts';
import { SessionUpdates } from '../updates/sessionUpdates.ts';
import { turnBodyOf } from './promptContent.ts';
import { stopReasonOf } from './stopReason.ts';

/*
 * One host session as one editor follows it. The host's event stream (from the seq the editor's view is
 * consistent at) becomes `session/update`s in order; a prompt is a host turn whose `done` answers it; the
 * approvals, questions and plans of the turns this editor started are asked with `session/request_permission`,
 * and closed in the editor when someone answers them first in the browser (the host's answer is idempotent:
 * whoever is second is told it was already answered and changes nothing).
 *
 * The session lives in the host: the browser sees the same turns, and a turn the editor started goes on when
 * the editor goes away.
 */

export interface FollowedSessionOptions {
  readonly host: HostClient;
  readonly client: AgentContext;
  readonly sessionId: string;
  readonly cwd: string;
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** The seq the editor's view is consistent at: the stream starts after it. */
  readonly afterSeq: number;
  readonly log: (line: string) => void;
  /** Waits between reconnects of a stream that dropped. */
  readonly reconnectMs?: number;
}

interface TurnWaiter {
  readonly resolve: (reason: StopReason) => void;
  readonly reject: (error: unknown) => void;
}

/** Ended turns remembered for a prompt whose POST answers after the stream delivered its end. */
const REMEMBERED_ENDS = 64;

export class FollowedSession {
  readonly sessionId: string;
  readonly #options: FollowedSessionOptions;
  readonly #updates: SessionUpdates;
  readonly #stop = new AbortController();
  /** Notifications and answers in the order their events came. */
  #chain: Promise<void> = Promise.resolve();
  #lastSeq: number;
  readonly #results = new Map<string, SessionEventPayload<'result'>>();
  readonly #ended = new Map<string, StopReason | Error>();
  readonly #waiters = new Map<string, TurnWaiter>();
  /** The turns this editor started that have not ended. */
  readonly #ownOpen = new Set<string>();
  /** The client message ids of this editor's prompts: its turns are known by them before the POST answers. */
  readonly #ownClientMessageIds = new Set<string>();
  /** Permission asks open in the editor, by the interaction's request id. */
  readonly #asks = new Map<string, AbortController>();
  #streaming: Promise<void> | undefined;

  constructor(options: FollowedSessionOptions) {
    this.#options = options;
    this.sessionId = options.sessionId;
    this.#lastSeq = options.afterSeq;
    this.#updates = new SessionUpdates({ cwd: options.cwd, clientCapabilities: options.clientCapabilities });
  }

  /** Sends the history as updates (`session/load`), oldest first; the stream then follows from `afterSeq`. */
  async replay(rows: readonly MessageView[]): Promise<void> {
    for (const row of rows) for (const update of this.#updates.fromRow(row)) await this.#notify(update);
  }

  /** Sends what the editor should know before the first prompt (the slash commands, …). */
  async announce(updates: readonly SessionUpdate[]): Promise<void> {
    for (const update of updates) await this.#notify(update);
  }

  /** Starts following the host's stream. */
  follow(): void {
    this.#streaming ??= this.#streamLoop();
  }

  /** `session/prompt`: runs a host turn and answers with how it ended. */
  async prompt(prompt: readonly ContentBlock[], clientMessageId: string): Promise<StopReason> {
    const body = turnBodyOf(prompt, clientMessageId);
    this.#ownClientMessageIds.add(clientMessageId);
    const posted = await this.#options.host
      .call('postTurn', { params: { id: this.sessionId }, body })
      .catch((error: unknown) => {
        throw hostRequestError(error);
      });
    this.#ownClientMessageIds.delete(clientMessageId);
    this.#own(posted.turnId);
    const ended = this.#ended.get(posted.turnId);
    if (ended !== undefined) {
      if (ended instanceof Error) throw ended;
      return ended;
    }
    return new Promise<StopReason>((resolve, reject) => this.#waiters.set(posted.turnId, { resolve, reject }));
  }

  /** `session/cancel`: the turns this editor started stop (a queued one is removed); their prompts answer `cancelled`. */
  async cancel(): Promise<void> {
    for (const controller of this.#asks.values()) controller.abort();
    await Promise.all(
      [...this.#ownOpen].map((turnId) =>
        this.#options.host
          .call('cancelTurn', { params: { id: this.sessionId, turnId }, body: {} })
          .catch((error: unknown) => this.#options.log(`cancel of a turn failed: ${describe(error)}`)),
      ),
    );
  }

  /** Stops following; prompts still waiting are answered with an error. The host session stays. */
  close(reason: string): void {
    this.#stop.abort();
    for (const controller of this.#asks.values()) controller.abort();
    for (const waiter of this.#waiters.values()) waiter.reject(RequestError.internalError(undefined, reason));
    this.#waiters.clear();
  }

  async #streamLoop(): Promise<void> {
    const { host, reconnectMs = 500 } = this.#options;
    while (!this.#stop.signal.aborted) {
      try {
        for await (const frame of host.stream('sessionEvents', {
          params: { id: this.sessionId },
          lastEventId: this.#lastSeq,
          signal: this.#stop.signal,
        })) {
          if (frame.id === undefined) continue; // a heartbeat
          const event = parseEvent(frame.event, frame.data);
          if (event === undefined) continue;
          this.#lastSeq = Math.max(this.#lastSeq, event.data.seq);
          this.#onEvent(event);
        }
      } catch (error) {
        if (this.#stop.signal.aborted) return;
        if (error instanceof HostApiError && error.status === 404) {
          this.close('the session no longer exists in the host');
          return;
        }
        this.#options.log(`the session's stream dropped (${describe(error)}); reconnecting`);
      }
      await new Promise((resolve) => setTimeout(resolve, reconnectMs));
    }
  }

  #own(turnId: string): void {
    if (this.#ended.has(turnId)) return;
    this.#updates.ownTurn(turnId);
    this.#ownOpen.add(turnId);
  }

  #onEvent(event: SessionEvent): void {
    if (event.type === 'turn_started') {
      const clientMessageId = event.data.message?.clientMessageId;
      if (clientMessageId != null && this.#ownClientMessageIds.has(clientMessageId)) this.#own(event.data.turnId);
    }
    for (const update of this.#updates.fromEvent(event)) void this.#notify(update);
    switch (event.type) {
      case 'result':
        this.#results.set(event.data.turnId, event.data);
        break;
      case 'done':
        this.#then(() => this.#turnEnded(event.data));
        break;
      case 'permission_request':
        if (this.#ownOpen.has(event.data.turnId)) this.#then(() => void this.#ask(event.data.interaction));
        break;
      case 'permission_resolved':
        this.#asks.get(event.data.requestId)?.abort();
        break;
    }
  }

  #turnEnded(done: SessionEventPayload<'done'>): void {
    const result = this.#results.get(done.turnId);
    this.#results.delete(done.turnId);
    this.#ownOpen.delete(done.turnId);
    let ended: StopReason | Error;
    try {
      ended = stopReasonOf(done, result);
    } catch (error) {
      ended = error as Error;
    }
    this.#ended.set(done.turnId, ended);
    if (this.#ended.size > REMEMBERED_ENDS) this.#ended.delete(this.#ended.keys().next().value as string);
    const waiter = this.#waiters.get(done.turnId);
    if (waiter === undefined) return;
    this.#waiters.delete(done.turnId);
    if (ended instanceof Error) waiter.reject(ended);
    else waiter.resolve(ended);
  }

  /** Asks the editor, one permission request per ask, then answers the host once with every pick. */
  async #ask(interaction: Interaction): Promise<void> {
    const controller = new AbortController();
    this.#asks.set(interaction.requestId, controller);
    try {
      const picks: RequestPermissionOutcome[] = [];
      for (const ask of permissionRequestsOf(interaction)) {
        const response = await this.#options.client.request(
          'session/request_permission',
          { sessionId: this.sessionId, toolCall: ask.toolCall, options: ask.options },
          { cancellationSignal: controller.signal },
        );
        if (controller.signal.aborted || response.outcome.outcome === 'cancelled') return;
        picks.push(response.outcome);
      }
      const answer = answerOf(interaction, picks);
      if (answer === undefined) return;
      await this.#options.host.call('answerInteraction', {
        params: { id: this.sessionId, requestId: interaction.requestId },
        body: answer,
      });
    } catch (error) {
      // Answered first elsewhere, or its turn ended: nothing is left to answer.
      if (error instanceof HostApiError && (error.code === 'conflict' || error.code === 'gone')) return;
      if (controller.signal.aborted) return;
      this.#options.log(`a permission request failed: ${describe(error)}`);
    } finally {
      this.#asks.delete(interaction.requestId);
    }
  }

  #notify(update: SessionUpdate): Promise<void> {
    return this.#then(() => this.#options.client.notify('session/update', { sessionId: this.sessionId, update }));
  }

  #then(step: () => void | Promise<void>): Promise<void> {
    const next = this.#chain.then(step).catch((error: unknown) => {
      this.#options.log(`an update could not be sent: ${describe(error)}`);
    });
    this.#chain = next;
    return next;
  }
}

function parseEvent(type: string, data: unknown): SessionEvent | undefined {
  const schema = sessionEventPayloadSchemas[type as keyof typeof sessionEventPayloadSchemas];
  // An event a newer host added: nothing an editor is told of.
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(data);
  return parsed.success ? ({ type, data: parsed.data } as SessionEvent) : undefined;
}

/** A host refusal as the JSON-RPC error the editor shows (its message says what to do). */
export function hostRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof HostApiError) {
    if (error.status === 404) return RequestError.resourceNotFound();
    if (error.status === 400 || error.status === 413 || error.status === 415 || error.status === 422) {
      return RequestError.invalidParams({ code: error.code }, error.message);
    }
    return RequestError.internalError({ code: error.code }, error.message);
  }
  return RequestError.internalError(undefined, `the host could not be reached: ${describe(error)}`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
