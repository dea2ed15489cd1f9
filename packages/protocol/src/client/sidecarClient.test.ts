import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { encodeError, encodeEvent, encodeOk } from '../encode.ts';
import type { SidecarEvent } from '../events/index.ts';
import { parseRequestLine, type SidecarRequest } from '../requestLine.ts';
import { within } from '../testing/within.ts';
import type { LineTransport } from '../transport/lineTransport.ts';
import { createLinkedLineTransports } from '../transport/linkedLineTransports.ts';
import { createStdioLineTransport } from '../transport/stdioLineTransport.ts';
import {
  SidecarClient,
  type SidecarCloseReason,
  type SidecarListenerKind,
  type SidecarProtocolError,
} from './sidecarClient.ts';
import { SidecarRequestError } from './sidecarRequestError.ts';

/** The sidecar end of a linked pair: records parsed requests and lets the test answer them. */
function fakeSidecar(transport: LineTransport) {
  const unread: SidecarRequest[] = [];
  const waiters: ((request: SidecarRequest) => void)[] = [];
  transport.start({
    onLine(line) {
      const parsed = parseRequestLine(line);
      assert.equal(parsed.kind, 'request', `client wrote an invalid request line: ${line}`);
      if (parsed.kind !== 'request') return;
      const waiter = waiters.shift();
      if (waiter === undefined) unread.push(parsed.request);
      else waiter(parsed.request);
    },
    onClose() {},
  });
  return {
    nextRequest: () =>
      within(
        new Promise<SidecarRequest>((resolve) => {
          const request = unread.shift();
          if (request === undefined) waiters.push(resolve);
          else resolve(request);
        }),
        'the next request',
      ),
    send: (line: string) => transport.send(line),
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function connect() {
  const [hostEnd, sidecarEnd] = createLinkedLineTransports();
  const sidecar = fakeSidecar(sidecarEnd);
  let nextId = 0;
  const client = new SidecarClient(hostEnd, { createRequestId: () => `req-${++nextId}` });
  const events: SidecarEvent[] = [];
  const protocolErrors: SidecarProtocolError[] = [];
  client.onEvent((event) => events.push(event));
  client.onProtocolError((error) => protocolErrors.push(error));
  return { client, sidecar, sidecarEnd, events, protocolErrors };
}

function nextOf<T>(subscribe: (listener: (value: T) => void) => () => void, what: string): Promise<T> {
  return within(
    new Promise<T>((resolve) => {
      const unsubscribe = subscribe((value) => {
        unsubscribe();
        resolve(value);
      });
    }),
    what,
  );
}

async function rejection(promise: Promise<unknown>): Promise<SidecarRequestError> {
  const error = await within(
    promise.then(
      () => assert.fail('expected the request to fail'),
      (reason: unknown) => reason,
    ),
    'the request to settle',
  );
  assert.ok(error instanceof SidecarRequestError, `expected a SidecarRequestError, got ${String(error)}`);
  return error;
}

describe('SidecarClient', () => {
  test('correlates concurrent requests by generated id, whatever the answer order', async () => {
    const { client, sidecar } = connect();
    try {
      const start = client.request<{ providerSessionId: string }>('start', { agentSessionId: 's1', cwd: '/repo' });
      const stop = client.request<{ stopped: boolean }>('stop_task', { agentSessionId: 's1', taskId: 'k' });
      const first = await sidecar.nextRequest();
      const second = await sidecar.nextRequest();
      assert.deepEqual(first, {
        version: 10,
        id: 'req-1',
        type: 'start',
        payload: { agentSessionId: 's1', cwd: '/repo' },
      });
      assert.equal(second.id, 'req-2');
      sidecar.send(encodeOk('req-2', { stopped: false }));
      sidecar.send(encodeOk('req-1', { providerSessionId: 'p1' }));
      assert.deepEqual(await within(start, 'start'), { providerSessionId: 'p1' });
      assert.deepEqual(await within(stop, 'stop_task'), { stopped: false });
    } finally {
      await client.close();
    }
  });

  test('an ok without payload resolves undefined', async () => {
    const { client, sidecar } = connect();
    try {
      const exec = client.request('exec', { agentSessionId: 's', turnId: 't' });
      sidecar.send(encodeOk((await sidecar.nextRequest()).id));
      assert.equal(await within(exec, 'exec'), undefined);
    } finally {
      await client.close();
    }
  });

  test('an error response rejects with its message, stage and delivery disposition', async () => {
    const { client, sidecar } = connect();
    try {
      const fork = rejection(client.request('fork_session', { providerSessionId: 'p' }));
      const { id } = await sidecar.nextRequest();
      sidecar.send(
        encodeError(id, 'Claude SDK session fork failed at provider_fork: boom', {
          stage: 'provider_fork',
          deliveryDisposition: 'unknown',
        }),
      );
      const error = await fork;
      assert.equal(error.message, 'Claude SDK session fork failed at provider_fork: boom');
      assert.equal(error.reason, 'error_response');
      assert.equal(error.stage, 'provider_fork');
      assert.equal(error.deliveryDisposition, 'unknown');
      assert.equal(error.requestType, 'fork_session');
    } finally {
      await client.close();
    }
  });

  test('a correlated answer of another type rejects as unexpected', async () => {
    const { client, sidecar } = connect();
    try {
      const guide = rejection(client.request('guide', { agentSessionId: 's' }));
      const { id } = await sidecar.nextRequest();
      sidecar.send(`{"version":10,"id":"${id}","type":"session_state","payload":{}}`);
      assert.equal((await guide).reason, 'unexpected_response');
    } finally {
      await client.close();
    }
  });

  test('times out, and a late answer is reported rather than thrown', async () => {
    const { client, sidecar, protocolErrors } = connect();
    try {
      const budgets = { interruptTimeoutMs: 10, drainTimeoutMs: 10 };
      const cancel = rejection(client.request('cancel', { agentSessionId: 's', ...budgets }, { timeoutMs: 5 }));
      const { id } = await sidecar.nextRequest();
      const error = await cancel;
      assert.equal(error.reason, 'timeout');
      assert.match(error.message, /cancel request timed out after 5ms/);
      const reported = nextOf<SidecarProtocolError>((listener) => client.onProtocolError(listener), 'the late ok');
      sidecar.send(encodeOk(id, { canceled: true }));
      assert.equal((await reported).reason, 'unexpected_response');
      assert.equal(protocolErrors.length, 1);
    } finally {
      await client.close();
    }
  });

  test('an abort signal rejects the request', async () => {
    const { client } = connect();
    try {
      const controller = new AbortController();
      const pending = rejection(client.request('close', {}, { signal: controller.signal }));
      controller.abort();
      assert.equal((await pending).reason, 'aborted');
      assert.equal((await rejection(client.request('close', {}, { signal: controller.signal }))).reason, 'aborted');
    } finally {
      await client.close();
    }
  });

  test('close rejects every pending request and every later one', async () => {
    const { client } = connect();
    const pending = [
      client.request('close', { agentSessionId: 'a' }),
      client.request('guide', { agentSessionId: 'b' }),
    ];
    const rejections = pending.map(rejection);
    await client.close();
    for (const request of rejections) assert.equal((await request).reason, 'closed');
    assert.equal((await rejection(client.request('close', {}))).reason, 'closed');
    assert.equal(client.closed, true);
  });

  test('the sidecar going away rejects pending requests and notifies close listeners with the reason', async () => {
    const { client, sidecar, sidecarEnd } = connect();
    const closed = nextOf<SidecarCloseReason>((listener) => client.onClose(listener), 'close notification');
    const pending = rejection(client.request('apply_settings', { agentSessionId: 's', model: 'opus' }));
    await sidecar.nextRequest();
    await sidecarEnd.close();
    const reason = await closed;
    assert.equal(reason.kind, 'input_ended');
    assert.equal(client.closeReason, reason);
    const error = await pending;
    assert.equal(error.reason, 'closed');
    assert.equal(
      error.message,
      'sidecar connection closed before apply_settings was answered: the sidecar closed its output',
    );
    const later = await rejection(client.request('close', {}));
    assert.equal(later.message, 'sidecar connection is closed: the sidecar closed its output');
  });

  test('closing it is a close by the host', async () => {
    const { client } = connect();
    const pending = rejection(client.request('guide', { agentSessionId: 'b' }));
    await client.close();
    assert.equal(client.closeReason?.kind, 'closed');
    assert.match((await pending).message, /: the host closed the sidecar connection$/);
  });

  test('a write to a sidecar that no longer reads closes the client and rejects its requests, never throws', async () => {
    // The child closes its stdin and stays alive: the write fails with EPIPE while its stdout is still open.
    const child = spawn('sh', ['-c', 'exec 0<&-; echo ready; exec sleep 30'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await within(once(child.stdout, 'data'), 'the child to close its stdin');
      const client = new SidecarClient(createStdioLineTransport({ input: child.stdout, output: child.stdin }));
      const closed = nextOf<SidecarCloseReason>((listener) => client.onClose(listener), 'close notification');
      const error = await rejection(client.request('exec', { agentSessionId: 's', turnId: 't', prompt: 'hi' }));
      assert.equal(error.reason, 'closed');
      assert.match(
        error.message,
        /^sidecar connection closed before exec was answered: writing to the sidecar failed: .*EPIPE/,
      );
      const reason = await closed;
      assert.equal(reason.kind, 'failed');
      assert.equal(client.closed, true);
      assert.equal((await rejection(client.request('close', {}))).reason, 'closed');
      await within(client.close(), 'close after the failure');
    } finally {
      child.kill();
    }
  });

  test('a listener that throws goes to the error hooks; other listeners and later lines are still served', async () => {
    const { client, sidecar, sidecarEnd, events } = connect();
    const thrown: [unknown, SidecarListenerKind][] = [];
    client.onListenerError((error, kind) => thrown.push([error, kind]));
    client.onListenerError(() => {
      throw new Error('a hook that throws as well');
    });
    client.onEvent(() => {
      throw new Error('event listener bug');
    });
    client.onProtocolError(() => {
      throw new Error('protocol error listener bug');
    });
    client.onClose(() => {
      throw new Error('close listener bug');
    });
    sidecar.send(encodeEvent('turn_completed', { turnId: 't', stopReason: 'end_turn' }));
    sidecar.send('not json');
    const exec = client.request('exec', { agentSessionId: 's', turnId: 't2' });
    sidecar.send(encodeOk((await sidecar.nextRequest()).id));
    assert.equal(await within(exec, 'exec after the throwing listeners'), undefined);
    assert.equal(events.length, 1, 'the other event listener still got the event');
    await sidecarEnd.close();
    await until(() => client.closed && thrown.length === 3, 'the close listener to throw');
    assert.deepEqual(
      thrown.map(([error, kind]) => [kind, error instanceof Error ? error.message : error]),
      [
        ['event', 'event listener bug'],
        ['protocol_error', 'protocol error listener bug'],
        ['close', 'close listener bug'],
      ],
    );
  });

  test('without an error hook a throwing listener becomes a process warning', async () => {
    const { client, sidecar } = connect();
    try {
      const warned = nextOf<Error>((listener) => {
        process.once('warning', listener);
        return () => process.off('warning', listener);
      }, 'the warning');
      client.onEvent(() => {
        throw new Error('event listener bug');
      });
      sidecar.send(encodeEvent('turn_completed', { turnId: 't', stopReason: 'end_turn' }));
      const warning = await warned;
      assert.equal(warning.name, 'SidecarListenerError');
      assert.equal(warning.message, 'a SidecarClient event listener threw: Error: event listener bug');
    } finally {
      await client.close();
    }
  });

  test('delivers validated events, including uncorrelated errors and errors for requests no longer waiting', async () => {
    const { client, sidecar, events } = connect();
    try {
      sidecar.send(encodeEvent('turn_completed', { turnId: 't', stopReason: 'end_turn', extra: 1 }));
      sidecar.send(encodeError(undefined, 'sidecar request is not valid JSON'));
      sidecar.send(encodeError('gone', 'unsupported request type nope'));
      await until(() => events.length === 3, 'three events');
      assert.deepEqual(events, [
        { type: 'turn_completed', payload: { turnId: 't', stopReason: 'end_turn', extra: 1 } },
        { type: 'error', payload: { error: 'sidecar request is not valid JSON' } },
        { type: 'error', payload: { error: 'unsupported request type nope' }, id: 'gone' },
      ]);
    } finally {
      await client.close();
    }
  });

  test('malformed output goes to protocol error listeners, never to events', async () => {
    const { client, sidecar, events, protocolErrors } = connect();
    try {
      sidecar.send('not json');
      sidecar.send('{"version":9,"type":"turn_completed"}');
      sidecar.send('{"version":10}');
      sidecar.send(encodeEvent('turn_completed', { turnId: 't' }));
      sidecar.send(encodeEvent('from_the_future', {}));
      sidecar.send('');
      await until(() => protocolErrors.length === 5, 'five protocol errors');
      assert.deepEqual(
        protocolErrors.map(({ reason, message }) => [reason, message]),
        [
          ['invalid_line', 'sidecar output is not valid JSON'],
          ['invalid_line', 'unsupported sidecar protocol version 9'],
          ['invalid_line', 'sidecar event type is required'],
          [
            'invalid_event_payload',
            'turn_completed stopReason: Invalid option: expected one of "end_turn"|"background_agent_idle"|"background_agent"|"background_agent_continuation_timeout"',
          ],
          ['unknown_event_type', 'unknown event type from_the_future'],
        ],
      );
      assert.deepEqual(events, []);
    } finally {
      await client.close();
    }
  });
});
