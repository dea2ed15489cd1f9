import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLinkedLineTransports, type EmitEvent, type LineTransport } from '@outrigger/protocol';
import type { SidecarSession } from '../shared/sidecarSession.ts';
import { startSidecarServer } from './sidecarServer.ts';

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A session whose exec waits for the gate named by its prompt, recording what ran; it names itself in a title event. */
function fakeSession(id: string, log: string[], gates: Map<string, Gate>, emit: EmitEvent): SidecarSession {
  const unsupported = async (): Promise<never> => {
    throw new Error('not used');
  };
  return {
    start: async () => {
      log.push(`${id}:start`);
      emit('session_title_updated', { providerSessionId: `provider-${id}`, title: id });
      return { providerSessionId: `provider-${id}` };
    },
    exec: async (payload) => {
      log.push(`${id}:exec:${payload.turnId}:start`);
      await gates.get(payload.prompt)?.promise;
      log.push(`${id}:exec:${payload.turnId}:end`);
    },
    close: async () => {
      log.push(`${id}:close`);
    },
    guide: unsupported,
    cancel: unsupported,
    stopTask: unsupported,
    submitInteractive: unsupported,
    interactiveDisposition: unsupported,
    applySettings: unsupported,
  };
}

function harness() {
  const [serverSide, hostSide] = createLinkedLineTransports();
  const log: string[] = [];
  const gates = new Map<string, Gate>();
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  const server = startSidecarServer({
    transport: serverSide,
    createSession: (payload, emit) => fakeSession(payload.agentSessionId, log, gates, emit),
    stateless: {
      inspect_fork_checkpoints: async () => ({ providerTurnIds: [] }),
      recover_turn_binding: async () => {
        throw Object.assign(new Error('not found'), { stage: 'source_lookup', deliveryDisposition: 'not_started' });
      },
      fork_session: async () => {
        throw new Error('not used');
      },
    },
  });
  let closed = false;
  hostSide.start({
    onLine: (line) => {
      lines.push(JSON.parse(line));
      for (const wake of waiters) wake();
    },
    onClose: () => {
      closed = true;
    },
  });
  const send = (value: unknown) => hostSide.send(typeof value === 'string' ? value : JSON.stringify(value));
  const request = (id: string, type: string, payload: Record<string, unknown>) =>
    send({ version: 10, id, type, payload });
  const response = (id: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const find = () => lines.find((line) => line.id === id);
      const timer = setTimeout(() => reject(new Error(`no response to ${id}; got ${JSON.stringify(lines)}`)), 2_000);
      const wake = () => {
        const found = find();
        if (!found) return;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve(found);
      };
      waiters.add(wake);
      wake();
    });
  return {
    server,
    hostSide: hostSide as LineTransport,
    log,
    gates,
    lines,
    send,
    request,
    response,
    isClosed: () => closed,
  };
}

test('invalid JSON is answered with an uncorrelated error; a bad envelope with an id gets a correlated one', async () => {
  const h = harness();
  h.send('not json');
  h.send({ version: 9, id: 'bad-version', type: 'start' });
  assert.deepEqual(await h.response('bad-version'), {
    version: 10,
    id: 'bad-version',
    type: 'error',
    payload: { error: 'unsupported sidecar protocol version 9' },
  });
  assert.deepEqual(h.lines[0], { version: 10, type: 'error', payload: { error: 'sidecar request is not valid JSON' } });
  await h.hostSide.close();
  await h.server.done;
});

test('a whitespace-only id is refused with an error that carries it, also on a line too deep to parse', async () => {
  const h = harness();
  h.send({ version: 10, id: '   ', type: 'close', payload: { agentSessionId: 'a' } });
  assert.deepEqual(await h.response('   '), {
    version: 10,
    id: '   ',
    type: 'error',
    payload: { error: 'sidecar request id must be a non-empty string' },
  });
  h.send(`{"version":10,"id":"\\t","type":"close","payload":${'['.repeat(200)}${']'.repeat(200)}}`);
  assert.deepEqual(await h.response('\t'), {
    version: 10,
    id: '\t',
    type: 'error',
    payload: { error: 'sidecar request nests deeper than 128 levels' },
  });
  await h.hostSide.close();
  await h.server.done;
});

test('requests for a session that was never started fail; close is tolerant', async () => {
  const h = harness();
  h.request('e1', 'exec', { agentSessionId: 'ghost', turnId: 't1', prompt: 'x' });
  h.request('c1', 'close', { agentSessionId: 'ghost' });
  assert.deepEqual((await h.response('e1')).payload, { error: 'session ghost is not started' });
  assert.deepEqual(await h.response('c1'), { version: 10, id: 'c1', type: 'ok' });
  await h.hostSide.close();
  await h.server.done;
});

test('one session runs its requests in order while another session is not held up', async () => {
  const h = harness();
  const slow = gate();
  h.gates.set('slow', slow);
  h.request('s1', 'start', { agentSessionId: 'a' });
  h.request('s2', 'start', { agentSessionId: 'b' });
  await Promise.all([h.response('s1'), h.response('s2')]);
  h.request('a1', 'exec', { agentSessionId: 'a', turnId: 't1', prompt: 'slow' });
  h.request('a2', 'exec', { agentSessionId: 'a', turnId: 't2', prompt: 'fast' });
  h.request('b1', 'exec', { agentSessionId: 'b', turnId: 't1', prompt: 'fast' });
  await h.response('b1');
  assert.ok(h.log.includes('a:exec:t1:start'));
  assert.ok(!h.log.includes('a:exec:t2:start'), 'the second request of session a waits for the first');
  slow.open();
  await h.response('a2');
  assert.ok(h.log.indexOf('a:exec:t1:end') < h.log.indexOf('a:exec:t2:start'));
  await h.hostSide.close();
  await h.server.done;
});

test('stateless reads run while a session request is blocked, and their error details are copied', async () => {
  const h = harness();
  const slow = gate();
  h.gates.set('slow', slow);
  h.request('s1', 'start', { agentSessionId: 'a' });
  await h.response('s1');
  h.request('a1', 'exec', { agentSessionId: 'a', turnId: 't1', prompt: 'slow' });
  h.request('i1', 'inspect_fork_checkpoints', { providerSessionId: 'p', cwd: '/tmp' });
  h.request('r1', 'recover_turn_binding', { providerSessionId: 'p', cwd: '/tmp', recoveryToken: 'x' });
  assert.deepEqual((await h.response('i1')).payload, { providerTurnIds: [] });
  assert.deepEqual((await h.response('r1')).payload, {
    error: 'not found',
    deliveryDisposition: 'not_started',
    stage: 'source_lookup',
  });
  slow.open();
  await h.response('a1');
  await h.hostSide.close();
  await h.server.done;
});

test('a payload the schema rejects is answered with its error', async () => {
  const h = harness();
  h.request('x1', 'exec', { agentSessionId: 'a' });
  assert.deepEqual((await h.response('x1')).payload, { error: 'exec requires turnId' });
  await h.hostSide.close();
  await h.server.done;
});

test('the end of input closes every session before the server is done', async () => {
  const h = harness();
  h.request('s1', 'start', { agentSessionId: 'a' });
  h.request('s2', 'start', { agentSessionId: 'b' });
  await Promise.all([h.response('s1'), h.response('s2')]);
  await h.hostSide.close();
  await h.server.done;
  assert.ok(h.log.includes('a:close') && h.log.includes('b:close'));
});

test('a second start for the same session closes the previous one first', async () => {
  const h = harness();
  h.request('s1', 'start', { agentSessionId: 'a' });
  await h.response('s1');
  h.request('s2', 'start', { agentSessionId: 'a' });
  await h.response('s2');
  assert.deepEqual(h.log, ['a:start', 'a:close', 'a:start']);
  await h.hostSide.close();
  await h.server.done;
});

test('every event a session emits names its agentSessionId, so one sidecar can serve many sessions', async () => {
  const h = harness();
  h.request('s1', 'start', { agentSessionId: 'a' });
  h.request('s2', 'start', { agentSessionId: 'b' });
  await Promise.all([h.response('s1'), h.response('s2')]);
  const titles = h.lines.filter((line) => line.type === 'session_title_updated').map((line) => line.payload);
  assert.deepEqual(
    titles.sort((x, y) => String((x as { title: string }).title).localeCompare(String((y as { title: string }).title))),
    [
      { providerSessionId: 'provider-a', title: 'a', agentSessionId: 'a' },
      { providerSessionId: 'provider-b', title: 'b', agentSessionId: 'b' },
    ],
  );
  await h.hostSide.close();
  await h.server.done;
});
