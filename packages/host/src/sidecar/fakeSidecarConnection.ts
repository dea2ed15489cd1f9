import {
  createLinkedLineTransports,
  encodeError,
  encodeEvent,
  encodeOk,
  parseRequestLine,
  SidecarClient,
  type SidecarEvent,
  type SidecarRequest,
} from '@outrigger/protocol';
import { subscribe } from './listeners.ts';
import type { SidecarConnection, SidecarExit } from './sidecarConnection.ts';

/** What the fake answers a request with: an `ok` payload, an `error`, or nothing yet (the test answers later). */
export type FakeAnswer =
  | { ok: Record<string, unknown> | undefined }
  | { error: string; stage?: string; deliveryDisposition?: string }
  | 'hold';

export type FakeHandler = (request: SidecarRequest, sidecar: FakeSidecar) => FakeAnswer | Promise<FakeAnswer>;

/**
 * A scripted sidecar behind a real `SidecarClient` over linked in-memory transports: the test decides
 * every answer and event, and when and how the "process" dies.
 */
export interface FakeSidecar extends SidecarConnection {
  readonly requests: SidecarRequest[];
  emit(type: SidecarEvent['type'], payload: Record<string, unknown>): void;
  answer(requestId: string, answer: Exclude<FakeAnswer, 'hold'>): void;
  writeStderr(line: string): void;
  /** The process dies: its stdout closes, then it exits. */
  die(exit?: Partial<SidecarExit>): void;
  readonly stopped: boolean;
}

let nextPid = 900_000;

export function createFakeSidecar(handler: FakeHandler = defaultHandler): FakeSidecar {
  const [hostEnd, sidecarEnd] = createLinkedLineTransports();
  const client = new SidecarClient(hostEnd, { defaultTimeoutMs: 10_000 });
  const requests: SidecarRequest[] = [];
  const stderrListeners = new Set<(line: string) => void>();
  let resolveExit!: (exit: SidecarExit) => void;
  const exited = new Promise<SidecarExit>((resolve) => {
    resolveExit = resolve;
  });
  let dead = false;
  let stopped = false;
  const die = (exit: Partial<SidecarExit> = {}): void => {
    if (dead) return;
    dead = true;
    void sidecarEnd.close().then(() => resolveExit({ code: exit.code ?? null, signal: exit.signal ?? null }));
  };
  const send = (line: string): void => {
    if (!dead) sidecarEnd.send(line);
  };
  const fake: FakeSidecar = {
    pid: nextPid++,
    requests,
    request: (type, payload, options) => client.request(type, payload, options),
    onEvent: (listener) => client.onEvent(listener),
    onProtocolError: (listener) => client.onProtocolError(listener),
    onClose: (listener) => client.onClose(listener),
    onStderrLine: (listener) => subscribe(stderrListeners, listener),
    exited,
    stop: async () => {
      stopped = true;
      await client.close();
      die({ code: 0 });
      return exited;
    },
    killNow: () => die({ signal: 'SIGKILL' }),
    emit: (type, payload) => send(encodeEvent(type, payload)),
    answer: (id, answer) => {
      if ('ok' in answer) send(encodeOk(id, answer.ok));
      else
        send(encodeError(id, answer.error, { stage: answer.stage, deliveryDisposition: answer.deliveryDisposition }));
    },
    writeStderr: (line) => {
      for (const listener of stderrListeners) listener(line);
    },
    die,
    get stopped() {
      return stopped;
    },
  };
  sidecarEnd.start({
    onLine: (line) => {
      const parsed = parseRequestLine(line);
      if (parsed.kind !== 'request') return;
      const request = parsed.request;
      requests.push(request);
      void Promise.resolve(handler(request, fake)).then((answer) => {
        if (answer !== 'hold' && request.id !== undefined) fake.answer(request.id, answer);
      });
    },
    onClose: () => die({ code: 0 }),
  });
  return fake;
}

/** Answers like a sidecar whose requests all succeed: `start` with a provider session id, `cancel` absent. */
export function defaultHandler(request: SidecarRequest): FakeAnswer {
  const payload = request.payload as Record<string, unknown>;
  switch (request.type) {
    case 'start':
      return { ok: { providerSessionId: `provider-${String(payload.agentSessionId)}` } };
    case 'cancel':
      return {
        ok: {
          canceled: false,
          disposition: 'absent',
          turnId: String(payload.turnId ?? ''),
          providerTurnId: '',
          dispatchPhase: 'unknown',
        },
      };
    case 'submit_interactive':
    case 'interactive_disposition':
      return { ok: { disposition: 'answered', replayed: false } };
    case 'stop_task':
      return { ok: { stopped: false } };
    default:
      return { ok: undefined };
  }
}
