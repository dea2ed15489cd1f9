import {
  type EmitEvent,
  encodeError,
  encodeEvent,
  encodeOk,
  type LineTransport,
  parseRequestLine,
  parseRequestPayload,
  type RequestPayload,
  type RequestType,
} from '@outrigger/protocol';
import { redactCredentials } from '../diagnostics/credentialRedaction.ts';
import type { SessionFactory, SidecarSession } from '../shared/sidecarSession.ts';
import { KeyedSerialQueue } from './keyedSerialQueue.ts';
import {
  isStatelessRequest,
  type RequestHandler,
  type RequestHandlerTable,
  type SessionRequestType,
  type StatelessRequestType,
} from './requestHandler.ts';

/** The requests that read provider history without a session (fork/ implements them). */
export type StatelessHandlers = RequestHandlerTable<StatelessRequestType>;

export interface SidecarServerOptions {
  transport: LineTransport;
  createSession: SessionFactory;
  stateless: StatelessHandlers;
}

export interface SidecarServer {
  /** Resolves once the input ended, every session closed and the transport flushed. */
  readonly done: Promise<void>;
}

/**
 * The protocol-10 request loop: parses each line, answers every request with exactly one `ok` or `error`
 * carrying its id, runs a session's requests in arrival order (a cancel does not wait for an earlier
 * cancel), and runs different sessions and the stateless reads concurrently.
 */
export function startSidecarServer(options: SidecarServerOptions): SidecarServer {
  const { transport, createSession, stateless } = options;
  const sessions = new Map<string, SidecarSession>();
  const sessionQueue = new KeyedSerialQueue();
  const statelessInFlight = new Set<Promise<unknown>>();
  const emit: EmitEvent = (type, payload) => transport.send(encodeEvent(type, payload));
  // One process serves many sessions: each session's events name it, so a host can route them.
  const sessionEmit =
    (agentSessionId: string): EmitEvent =>
    (type, payload) =>
      emit(type, { ...payload, agentSessionId });
  let closing = false;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });

  const respond = (id: string | undefined, work: Promise<unknown>): void => {
    work.then(
      (result) => transport.send(encodeOk(id, result === undefined ? undefined : result)),
      (error: unknown) => transport.send(encodeError(id, errorMessage(error), errorDetails(error))),
    );
  };

  const requireSession = (agentSessionId: string): SidecarSession => {
    const session = sessions.get(agentSessionId);
    if (!session) throw new Error(`session ${agentSessionId} is not started`);
    return session;
  };

  const sessionHandlers: RequestHandlerTable<SessionRequestType> = {
    start: async (payload) => {
      const { agentSessionId } = payload;
      const previous = sessions.get(agentSessionId);
      if (previous) {
        sessions.delete(agentSessionId);
        await previous.close().catch(() => undefined);
      }
      const session = createSession(payload, sessionEmit(agentSessionId));
      sessions.set(agentSessionId, session);
      try {
        return await session.start();
      } catch (error) {
        sessions.delete(agentSessionId);
        await session.close().catch(() => undefined);
        throw error;
      }
    },
    close: async ({ agentSessionId }) => {
      const session = sessions.get(agentSessionId);
      if (!session) return;
      await session.close();
      sessions.delete(agentSessionId);
    },
    exec: async (payload) => requireSession(payload.agentSessionId).exec(payload),
    guide: async (payload) => requireSession(payload.agentSessionId).guide(payload),
    cancel: async (payload, requestId) => requireSession(payload.agentSessionId).cancel(payload, { requestId }),
    stop_task: async (payload) => requireSession(payload.agentSessionId).stopTask(payload),
    submit_interactive: async (payload) => requireSession(payload.agentSessionId).submitInteractive(payload),
    interactive_disposition: async (payload) => requireSession(payload.agentSessionId).interactiveDisposition(payload),
    apply_settings: async (payload) => requireSession(payload.agentSessionId).applySettings(payload),
  };

  const sessionRequest = <T extends SessionRequestType>(
    type: T,
    payload: RequestPayload<T>,
    id: string | undefined,
  ) => {
    const handler: RequestHandler<T> = sessionHandlers[type];
    const handle = () => handler(payload, id);
    if (type !== 'cancel') return sessionQueue.run(payload.agentSessionId, handle);
    // A guide still waiting for its interrupt gives way to a cancel queued behind it.
    sessions.get(payload.agentSessionId)?.cancelRequested?.(payload as RequestPayload<'cancel'>);
    // A cancel must be able to meet a cancel still in flight (it reports the turn as unresolved).
    return sessionQueue.runPreemptive(payload.agentSessionId, handle);
  };

  const statelessRequest = <T extends StatelessRequestType>(type: T, payload: RequestPayload<T>) => {
    const handler: RequestHandler<T> = stateless[type];
    const work = handler(payload, undefined);
    const tracked = work.catch(() => undefined);
    statelessInFlight.add(tracked);
    void tracked.then(() => statelessInFlight.delete(tracked));
    return work;
  };

  /** Validates the payload for its type, then hands it to that type's handler. */
  const dispatch = <T extends RequestType>(
    type: T,
    rawPayload: unknown,
    id: string | undefined,
    run: (payload: RequestPayload<T>) => Promise<unknown>,
  ): void => {
    const payload = parseRequestPayload(type, rawPayload);
    if (!payload.ok) {
      transport.send(encodeError(id, payload.error));
      return;
    }
    respond(id, run(payload.value));
  };

  const handleLine = (line: string): void => {
    const parsed = parseRequestLine(line);
    if (parsed.kind === 'blank') return;
    if (parsed.kind === 'invalid') {
      transport.send(encodeError(parsed.id, parsed.error));
      return;
    }
    const { request } = parsed;
    if (closing) {
      transport.send(encodeError(request.id, 'sidecar is shutting down'));
      return;
    }
    const { type, id } = request;
    if (isStatelessRequest(type)) {
      dispatch(type, request.payload, id, (payload) => statelessRequest(type, payload));
    } else {
      dispatch(type, request.payload, id, (payload) => sessionRequest(type, payload, id));
    }
  };

  const shutdown = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    const closes = [...sessions.keys()].map((agentSessionId) =>
      sessionQueue.run(agentSessionId, async () => {
        const session = sessions.get(agentSessionId);
        sessions.delete(agentSessionId);
        await session?.close();
      }),
    );
    await Promise.allSettled(closes);
    await sessionQueue.drained();
    await Promise.allSettled([...statelessInFlight]);
    await transport.close();
    finish();
  };

  transport.start({
    onLine: handleLine,
    onOversizedLine: (bytes) => {
      emit('error', { error: `sidecar request line of ${bytes} bytes exceeds the size limit and was discarded` });
    },
    onClose: () => void shutdown(),
  });
  return { done };
}

/** An answer's error text; a handler's error may quote a key it was given, which never goes out. */
function errorMessage(error: unknown): string {
  if (error instanceof Error) return redactCredentials(error.message);
  return typeof error === 'string' ? redactCredentials(error) : 'sidecar request failed';
}

/** Fork and cancel errors say where they failed and whether the mutation may have happened. */
function errorDetails(error: unknown): { stage?: string; deliveryDisposition?: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { stage, deliveryDisposition } = error as { stage?: unknown; deliveryDisposition?: unknown };
  const details: { stage?: string; deliveryDisposition?: string } = {};
  if (typeof stage === 'string') details.stage = stage;
  if (typeof deliveryDisposition === 'string') details.deliveryDisposition = deliveryDisposition;
  return details.stage || details.deliveryDisposition ? details : undefined;
}
