import {
  type EmitEvent,
  encodeError,
  encodeEvent,
  encodeOk,
  type ForkSessionPayload,
  type ForkSessionResult,
  type InspectForkCheckpointsPayload,
  type InspectForkCheckpointsResult,
  type LineTransport,
  parseRequestLine,
  parseRequestPayload,
  type RecoverTurnBindingPayload,
  type RecoverTurnBindingResult,
  type RequestType,
} from '@outrigger/protocol';
import { KeyedSerialQueue } from './keyedSerialQueue.ts';
import type { SessionFactory, SidecarSession } from './sidecarSession.ts';

/** The requests that read provider history without a session (fork/ implements them). */
export interface StatelessHandlers {
  inspectForkCheckpoints(payload: InspectForkCheckpointsPayload): Promise<InspectForkCheckpointsResult>;
  recoverTurnBinding(payload: RecoverTurnBindingPayload): Promise<RecoverTurnBindingResult>;
  forkSession(payload: ForkSessionPayload): Promise<ForkSessionResult>;
}

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

  const sessionRequest = (type: RequestType, payload: Record<string, unknown>, id: string | undefined) => {
    const agentSessionId = typeof payload.agentSessionId === 'string' ? payload.agentSessionId : '';
    const requireSession = (): SidecarSession => {
      const session = sessions.get(agentSessionId);
      if (!session) throw new Error(`session ${agentSessionId} is not started`);
      return session;
    };
    const handle = async (): Promise<unknown> => {
      switch (type) {
        case 'start': {
          const previous = sessions.get(agentSessionId);
          if (previous) {
            sessions.delete(agentSessionId);
            await previous.close().catch(() => undefined);
          }
          const session = createSession(payload as never, emit);
          sessions.set(agentSessionId, session);
          try {
            return await session.start();
          } catch (error) {
            sessions.delete(agentSessionId);
            await session.close().catch(() => undefined);
            throw error;
          }
        }
        case 'close': {
          const session = sessions.get(agentSessionId);
          if (!session) return undefined;
          await session.close();
          sessions.delete(agentSessionId);
          return undefined;
        }
        case 'exec':
          return requireSession().exec(payload as never);
        case 'guide':
          return requireSession().guide(payload as never);
        case 'cancel':
          return requireSession().cancel(payload as never, { requestId: id });
        case 'stop_task':
          return requireSession().stopTask(payload as never);
        case 'submit_interactive':
          return requireSession().submitInteractive(payload as never);
        case 'interactive_disposition':
          return requireSession().interactiveDisposition(payload as never);
        case 'apply_settings':
          return requireSession().applySettings(payload as never);
        default:
          throw new Error(`unsupported request type ${type}`);
      }
    };
    // A cancel must be able to meet a cancel still in flight (it reports the turn as unresolved).
    return type === 'cancel'
      ? sessionQueue.runPreemptive(agentSessionId, handle)
      : sessionQueue.run(agentSessionId, handle);
  };

  const statelessRequest = (type: RequestType, payload: Record<string, unknown>): Promise<unknown> | undefined => {
    let work: Promise<unknown>;
    if (type === 'inspect_fork_checkpoints') work = stateless.inspectForkCheckpoints(payload as never);
    else if (type === 'recover_turn_binding') work = stateless.recoverTurnBinding(payload as never);
    else if (type === 'fork_session') work = stateless.forkSession(payload as never);
    else return undefined;
    const tracked = work.catch(() => undefined);
    statelessInFlight.add(tracked);
    void tracked.then(() => statelessInFlight.delete(tracked));
    return work;
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
    const payload = parseRequestPayload(request.type, request.payload);
    if (!payload.ok) {
      transport.send(encodeError(request.id, payload.error));
      return;
    }
    const value = payload.value as Record<string, unknown>;
    respond(request.id, statelessRequest(request.type, value) ?? sessionRequest(request.type, value, request.id));
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

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'sidecar request failed';
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
