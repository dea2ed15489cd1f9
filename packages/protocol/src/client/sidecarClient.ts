import { randomUUID } from 'node:crypto';
import { encodeRequest } from '../encode.ts';
import { parseSidecarLine, type SidecarMessage } from '../envelope.ts';
import { eventPayloadSchemas, isSidecarEventType, type SidecarEvent } from '../events/index.ts';
import { isPlainObject } from '../plainObject.ts';
import type { RequestPayloadInput } from '../requests/index.ts';
import type { RequestType } from '../requestTypes.ts';
import type { RequestResult } from '../results.ts';
import type { LineTransport, LineTransportEnd } from '../transport/lineTransport.ts';
import { ListenerErrorHooks } from './listenerSet.ts';
import { SidecarRequestError } from './sidecarRequestError.ts';

export type SidecarClientOptions = {
  /** Per-request deadline unless the request names its own; `Infinity` waits forever. Default 30 s. */
  defaultTimeoutMs?: number;
  createRequestId?: () => string;
  /** Check event payloads against their schemas; failures go to `onProtocolError`. Default true. */
  validateEvents?: boolean;
};

export type RequestOptions = { timeoutMs?: number; signal?: AbortSignal };

/** Sidecar output the client could not use. It never throws for these; it reports them. */
export type SidecarProtocolError = {
  reason: 'invalid_line' | 'oversized_line' | 'unknown_event_type' | 'invalid_event_payload' | 'unexpected_response';
  /** Says what was wrong, never what the line contained. */
  message: string;
  type?: string;
  id?: string;
};

/** Why the connection closed: how the transport ended, said in words a host can log or show. */
export type SidecarCloseReason = LineTransportEnd & {
  /** e.g. `writing to the sidecar failed: write EPIPE`; never contains what was sent. */
  readonly message: string;
};

/** Which kind of host listener threw. */
export type SidecarListenerKind = 'event' | 'protocol_error' | 'close';

type PendingRequest = {
  type: RequestType;
  resolve(payload: unknown): void;
  reject(error: SidecarRequestError): void;
};

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The host side of one sidecar connection: correlated requests, events, and reporting of
 * malformed output. Every pending request settles exactly once: answer, timeout or close. A host
 * listener that throws never reaches the stream that delivered the line (where it would be an uncaught
 * exception): it is reported to the `onListenerError` hooks, and the other listeners still run.
 */
export class SidecarClient {
  readonly #transport: LineTransport;
  readonly #defaultTimeoutMs: number;
  readonly #createRequestId: () => string;
  readonly #validateEvents: boolean;
  readonly #pending = new Map<string, PendingRequest>();
  readonly #listenerErrors = new ListenerErrorHooks<SidecarListenerKind>('SidecarClient');
  readonly #eventListeners = this.#listenerErrors.listeners<SidecarEvent>('event');
  readonly #protocolErrorListeners = this.#listenerErrors.listeners<SidecarProtocolError>('protocol_error');
  readonly #closeListeners = this.#listenerErrors.listeners<SidecarCloseReason>('close');
  #closed = false;
  #closeReason: SidecarCloseReason | undefined;

  constructor(transport: LineTransport, options: SidecarClientOptions = {}) {
    this.#transport = transport;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#createRequestId = options.createRequestId ?? randomUUID;
    this.#validateEvents = options.validateEvents ?? true;
    transport.start({
      onLine: (line) => this.#handleLine(line),
      onOversizedLine: (bytes) =>
        this.#reportProtocolError({
          reason: 'oversized_line',
          message: `discarded a ${bytes}-byte line over the limit`,
        }),
      onClose: (end) => this.#handleClose(end),
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Set once the connection has closed. */
  get closeReason(): SidecarCloseReason | undefined {
    return this.#closeReason;
  }

  /** Resolves with the `ok` payload (undefined for requests that answer without one). */
  request<K extends RequestType>(
    type: K,
    payload: RequestPayloadInput<K>,
    options?: RequestOptions,
  ): Promise<RequestResult<K>>;
  /**
   * @deprecated Untyped: for payloads the schemas must not check (a raw process harness sending what it is
   * given) and callers that still name the result by hand. A misspelled key passes here unnoticed.
   */
  request<T = unknown>(type: RequestType, payload?: Record<string, unknown>, options?: RequestOptions): Promise<T>;
  request(type: RequestType, payload: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<unknown> {
    const id = this.#createRequestId();
    if (this.#closed) {
      return Promise.reject(this.#failure(`sidecar connection is closed${this.#reasonSuffix()}`, 'closed', id, type));
    }
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    return new Promise<unknown>((resolve, reject) => {
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(
            () =>
              this.#settle(
                id,
                this.#failure(`sidecar ${type} request timed out after ${timeoutMs}ms`, 'timeout', id, type),
              ),
            timeoutMs,
          )
        : undefined;
      const onAbort = () => this.#settle(id, this.#failure(`sidecar ${type} request was aborted`, 'aborted', id, type));
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      this.#pending.set(id, {
        type,
        resolve: (value) => {
          cleanup();
          resolve(value);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#transport.send(encodeRequest(type, payload, id));
    });
  }

  /** Events, including uncorrelated `error`s and `error`s answering requests that no longer wait. */
  onEvent(listener: (event: SidecarEvent) => void): () => void {
    return this.#eventListeners.add(listener);
  }

  onProtocolError(listener: (error: SidecarProtocolError) => void): () => void {
    return this.#protocolErrorListeners.add(listener);
  }

  /** The connection ended, by `close()`, because the sidecar went away or because a stream failed; once. */
  onClose(listener: (reason: SidecarCloseReason) => void): () => void {
    return this.#closeListeners.add(listener);
  }

  /**
   * A listener of this client threw. Without a hook the error becomes a process warning, never an
   * uncaught exception.
   */
  onListenerError(hook: (error: unknown, kind: SidecarListenerKind) => void): () => void {
    return this.#listenerErrors.add(hook);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closeReason ??= closeReason({ kind: 'closed' });
    this.#rejectAllPending();
    this.#closed = true;
    await this.#transport.close();
  }

  #handleLine(line: string): void {
    const parsed = parseSidecarLine(line);
    if (parsed.kind === 'blank') return;
    if (parsed.kind === 'invalid') {
      this.#reportProtocolError({ reason: 'invalid_line', message: parsed.error });
      return;
    }
    const { message } = parsed;
    const waiter = message.id === undefined ? undefined : this.#pending.get(message.id);
    if (waiter !== undefined && message.id !== undefined) {
      this.#answer(message.id, waiter, message);
    } else if (message.type === 'ok') {
      this.#reportProtocolError({
        reason: 'unexpected_response',
        message: 'ok response for no pending request',
        type: message.type,
        id: message.id,
      });
    } else {
      this.#dispatchEvent(message);
    }
  }

  #answer(id: string, waiter: PendingRequest, message: SidecarMessage): void {
    if (message.type === 'ok') {
      this.#pending.delete(id);
      waiter.resolve(message.payload);
      return;
    }
    if (message.type === 'error') {
      const payload = isPlainObject(message.payload) ? message.payload : {};
      const error = typeof payload.error === 'string' ? payload.error : 'sidecar request failed';
      this.#settle(
        id,
        this.#failure(error, 'error_response', id, waiter.type, {
          stage: typeof payload.stage === 'string' ? payload.stage : undefined,
          deliveryDisposition:
            typeof payload.deliveryDisposition === 'string' ? payload.deliveryDisposition : undefined,
        }),
      );
      return;
    }
    this.#settle(id, this.#failure(`unexpected response ${message.type}`, 'unexpected_response', id, waiter.type));
  }

  #dispatchEvent(message: SidecarMessage): void {
    const { type, id } = message;
    if (!isSidecarEventType(type)) {
      this.#reportProtocolError({
        reason: 'unknown_event_type',
        message: `unknown event type ${type}`,
        type,
        id,
      });
      return;
    }
    let payload = message.payload;
    if (this.#validateEvents) {
      const result = eventPayloadSchemas[type].safeParse(payload);
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue === undefined || issue.path.length === 0 ? 'payload' : issue.path.join('.');
        this.#reportProtocolError({
          reason: 'invalid_event_payload',
          message: `${type} ${where}: ${issue?.message ?? 'invalid'}`,
          type,
          id,
        });
        return;
      }
      payload = result.data;
    }
    const event = (id === undefined ? { type, payload } : { type, payload, id }) as SidecarEvent;
    this.#eventListeners.emit(event);
  }

  #settle(id: string, error: SidecarRequestError): void {
    const waiter = this.#pending.get(id);
    if (waiter === undefined) return;
    this.#pending.delete(id);
    waiter.reject(error);
  }

  #failure(
    message: string,
    reason: SidecarRequestError['reason'],
    requestId: string,
    requestType: RequestType,
    extra: { stage?: string; deliveryDisposition?: string } = {},
  ): SidecarRequestError {
    return new SidecarRequestError(message, { reason, requestId, requestType, ...extra });
  }

  #rejectAllPending(): void {
    for (const [id, waiter] of [...this.#pending]) {
      this.#settle(
        id,
        this.#failure(
          `sidecar connection closed before ${waiter.type} was answered${this.#reasonSuffix()}`,
          'closed',
          id,
          waiter.type,
        ),
      );
    }
  }

  #handleClose(end: LineTransportEnd): void {
    this.#closeReason ??= closeReason(end);
    this.#rejectAllPending();
    this.#closed = true;
    this.#closeListeners.emit(this.#closeReason);
  }

  #reasonSuffix(): string {
    return this.#closeReason === undefined ? '' : `: ${this.#closeReason.message}`;
  }

  #reportProtocolError(error: SidecarProtocolError): void {
    this.#protocolErrorListeners.emit(error);
  }
}

function closeReason(end: LineTransportEnd): SidecarCloseReason {
  switch (end.kind) {
    case 'closed':
      return { ...end, message: 'the host closed the sidecar connection' };
    case 'input_ended':
      return { ...end, message: 'the sidecar closed its output' };
    case 'failed':
      return {
        ...end,
        message: `${end.stream === 'output' ? 'writing to' : 'reading from'} the sidecar failed: ${end.error.message}`,
      };
  }
}
